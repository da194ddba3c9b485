import Foundation
import Logging
import StateStore
import Testing

/// `Fixtures/intake-2026-11-26.log` was written by the encoder of the release of 26 November 2026
/// (`Sources/TagActions/IntakeLog.swift` at commit 6879da5, `IntakeLog.encode`), compiled on its own: three
/// webhooks (ids 1, 2 and 4, the first with a secret and a header) and one QoS 1 MQTT publication (id 3), then a
/// fifth record cut short after 20 bytes, at byte offset 797, as a crash in the middle of its `write` leaves it.
@Suite("Upgrading from a release with an intake log")
struct LegacyIntakeLogTests {
    static func fixture() throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/intake-2026-11-26", withExtension: "log"))
        return try Data(contentsOf: url)
    }

    @Test("a fresh database imports every complete delivery of the log, with its ids, then the log is removed")
    func importsIntoFreshDatabase() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            try Self.fixture().write(to: URL(fileURLWithPath: directory + "/intake.log"))
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            #expect(try database.importLegacyIntakeLog() == 4)
            #expect(!FileManager.default.fileExists(atPath: directory + "/intake.log"))
            let first = try #require(try database.deliveries(eventID: "01a2088a-729c-7be8-b71b-808993678e81").first)
            #expect(first.id == 1)
            #expect(first.kind == .webhook)
            #expect(first.state == .pending)
            #expect(first.target == "http://127.0.0.1:8123/api/webhook/SECRET1")
            #expect(first.method == .post)
            #expect(first.headers == [Delivery.Header("Authorization", "Bearer abc")])
            #expect(first.secret == "s3cret")
            #expect(first.body == Array(#"{"n":1}"#.utf8))
            #expect(first.timeoutMilliseconds == 5000)
            #expect(first.createdAt == 1_764_000_000_000)
            #expect(first.nextAttemptAt == 1_764_000_000_000)
            #expect(first.deadline == 1_764_086_400_000)
            let ipv6 = try #require(try database.deliveries(eventID: "01a2088a-729c-7be8-b71b-808993678e82").first)
            #expect(ipv6.target == "https://[::1]:8443/hook?x=%3B")
            #expect(ipv6.method.rawValue == "PUT")
            let publication = try #require(
                try database.deliveries(eventID: "01a2088a-729c-7be8-b71b-808993678e83").first)
            #expect(publication.kind == .mqtt)
            #expect(publication.target == "tagrouter/shelf/tag")
            #expect(publication.qos == 1)
            #expect(publication.retain)
            #expect(try database.pendingCounts() == [.webhook: 3, .mqtt: 1])
            // The next delivery continues the id sequence; a second start finds no log and imports nothing.
            #expect(try database.insert(.webhook("http://h/", eventID: "next")).id == 5)
            #expect(try database.importLegacyIntakeLog() == 0)
        }
    }

    @Test("deliveries the database already received (or pruned) are not imported again")
    func skipsDeliveriesAlreadyInserted() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            // The earlier release inserted ids 1 and 2 before the crash; 1 was delivered since.
            for index in 1...2 { _ = try database.insert(.webhook("http://h/\(index)", eventID: "old\(index)")) }
            try database.record([DeliveryOutcome(id: 1, state: .delivered, nextAttemptAt: 0, finishedAt: 0)])
            try Self.fixture().write(to: URL(fileURLWithPath: directory + "/intake.log"))
            #expect(try database.importLegacyIntakeLog() == 2)
            #expect(try database.deliveries(eventID: "01a2088a-729c-7be8-b71b-808993678e81").isEmpty)
            #expect(try database.deliveries(eventID: "01a2088a-729c-7be8-b71b-808993678e83").map(\.id) == [3])
            #expect(try database.deliveries(eventID: "01a2088a-729c-7be8-b71b-808993678e84").map(\.id) == [4])
        }
    }

    @Test("a log still locked by a running router of that release is refused, naming the file")
    func lockedLogIsRefused() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let path = directory + "/intake.log"
            try Self.fixture().write(to: URL(fileURLWithPath: path))
            let holder = open(path, O_RDWR)
            defer { close(holder) }
            #expect(flock(holder, LOCK_EX) == 0)
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            #expect {
                try database.importLegacyIntakeLog()
            } throws: { error in
                "\(error)".contains("intake log \(path) is locked by another process")
            }
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }
}
