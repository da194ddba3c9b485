import Foundation
import StateStore
import Testing

/// What the web console keeps and reads in the state database (docs/console.md): one-time logins, the door log's
/// pages, and the deliveries it retries and drops.
struct ConsoleStoreTests {
    @Test("a one-time login is spent once, and not after it expires")
    func oneTimeLogins() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let now = Date()
            try database.addConsoleLogin(tokenHash: "a", expiresAt: now + 600)
            try database.addConsoleLogin(tokenHash: "b", expiresAt: now + 600)
            #expect(try database.spendConsoleLogin(tokenHash: "a", now: now))
            #expect(try !database.spendConsoleLogin(tokenHash: "a", now: now))
            #expect(try !database.spendConsoleLogin(tokenHash: "b", now: now + 601))
            #expect(try !database.spendConsoleLogin(tokenHash: "never issued", now: now))
        }
    }

    @Test("pages follow each other along (time, id), in both orders, filters kept, with no tap twice or missed")
    func tapPages() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            // Three taps share each millisecond: only the id orders them.
            try database.recordTaps(
                (0..<301).map { index in
                    var tap = TapRecord(
                        time: start + Double(index / 3) / 1000, reader: index % 2 == 0 ? "Door" : "Desk",
                        outcome: index % 4 == 0 ? .denied : .matched, detail: "\(index)")
                    tap.reason = index % 4 == 0 ? (index % 8 == 0 ? "disabled" : "expired") : nil
                    return tap
                })
            for order in [StateDatabase.TapOrder.newestFirst, .oldestFirst] {
                var seen: [String] = []
                var cursor: TapCursor?
                var pages = 0
                repeat {
                    let page = try database.taps(matching: TapFilter(), order: order, from: cursor, limit: 50)
                    seen += page.taps.compactMap(\.detail)
                    cursor = page.next
                    pages += 1
                } while cursor != nil
                let expected = (0..<301).map(String.init)
                #expect(seen == (order == .oldestFirst ? expected : expected.reversed()))
                #expect(pages == 7)
            }
            var filter = TapFilter()
            filter.reader = "Door"
            filter.reason = "disabled"
            let page = try database.taps(matching: filter, order: .newestFirst, from: nil, limit: 1000)
            #expect(page.taps.map(\.detail) == stride(from: 296, through: 0, by: -8).map { "\($0)" })
            #expect(page.next == nil)
        }
    }

    @Test("a cursor reads back from its text; anything else is none")
    func cursorText() {
        #expect(TapCursor("1800000000123.42") == TapCursor(time: 1_800_000_000_123, id: 42))
        #expect(TapCursor(time: 5, id: 7).description == "5.7")
        for text in ["", "5", "5.", ".7", "a.b", "5.7.9"] { #expect(TapCursor(text) == nil) }
    }

    @Test("retry now makes a waiting or failed delivery due; drop deletes it; a delivered one is left alone")
    func retryAndDrop() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let waiting = try database.insert(.webhook("https://a.example/x", eventID: "e1"))
            let failed = try database.insert(.webhook("https://b.example/x", eventID: "e2"))
            let delivered = try database.insert(.webhook("https://c.example/x", eventID: "e3"))
            try database.record([
                DeliveryOutcome(id: failed.id, state: .failed, status: 500, nextAttemptAt: 0, finishedAt: 10),
                DeliveryOutcome(id: delivered.id, state: .delivered, status: 200, nextAttemptAt: 0, finishedAt: 10),
            ])
            #expect(try database.unfinishedOrFailedDeliveries().map(\.id) == [failed.id, waiting.id])
            let now = Timestamp.milliseconds(Date()) + 5000
            #expect(try database.retryDeliveryNow(id: failed.id, now: now))
            #expect(try !database.retryDeliveryNow(id: delivered.id, now: now))
            let retried = try #require(try database.deliveries(eventID: "e2").first)
            #expect(retried.state == .pending)
            #expect(retried.nextAttemptAt == now)
            #expect(retried.deadline == now + (failed.deadline - failed.createdAt))
            #expect(retried.finishedAt == nil)
            #expect(try database.due(.webhook, now: now, limit: 10).map(\.id).contains(failed.id))
            #expect(try database.dropDelivery(id: waiting.id))
            #expect(try !database.dropDelivery(id: waiting.id))
            #expect(try !database.dropDelivery(id: delivered.id))
            #expect(try database.deliveries(eventID: "e1").isEmpty)
            #expect(try database.deliveries(eventID: "e3").count == 1)
        }
    }
}
