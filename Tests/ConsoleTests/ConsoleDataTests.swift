import Console
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import StateStore
import Synchronization
import Testing

/// The console's pages over data: hostile tag text escaped everywhere, the door log's pages and exports, the
/// live feed's bounded buffers, enrollment by tapping.
@Suite struct ConsoleDataTests {
    /// A tap whose every field a tag chooses is hostile.
    static func hostileTap(uri: String = "javascript:alert(1)//\"onmouseover=alert(2)") -> TapRecord {
        var tap = TapRecord(
            time: Date(), reader: "Door \(ConsoleFixture.hostile)", uid: "04B1B2C3D4E581", uri: uri,
            rule: "front-door", outcome: .denied, detail: ConsoleFixture.hostile)
        tap.tagName = ConsoleFixture.hostile
        tap.reason = "disabled"
        return tap
    }

    @Test(arguments: ConsoleRouteTests.pages)
    func hostileTagDataIsEscapedOnEveryPage(path: String) async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try fixture.database.recordTap(Self.hostileTap())
        fixture.feed.publish(LiveTap(record: Self.hostileTap()))
        fixture.feed.readersChanged(["Door \(ConsoleFixture.hostile)": true])
        try await fixture.test { client in
            let (cookie, _) = try await fixture.signIn(client)
            let uri =
                path == "/rules"
                ? "/rules?uri=\(ConsoleFixture.hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&explain=1"
                : path
            try await client.execute(uri: uri, method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(!page.contains("<script>window.__xss"), "a script on \(path)")
                #expect(!page.contains("\"onmouseover"), "an attribute on \(path)")
                // A form field's value keeps the text as it is (a hidden reader name, the URI typed in); nothing
                // shown does.
                let shown = page.replacing(#/value="[^"]*"/#, with: "")
                #expect(!shown.contains("\u{202E}"), "a bidi override on \(path)")
                #expect(!page.contains("href=\"javascript:"), "a javascript: link on \(path)")
                if path != "/deliveries" && path != "/readers" {
                    #expect(page.contains("&lt;script&gt;window.__xss=1&lt;/script&gt;"), "\(path) shows the text")
                }
                if path != "/deliveries" && path != "/rules" {
                    #expect(page.contains(#"\u{202E}evil"#), "\(path) shows the bidi override as text")
                }
            }
        }
    }

    static let links: [(uri: String, link: String?)] = [
        ("https://door.example/open?a=1", "https://door.example/open?a=1"),
        ("http://door.example", "http://door.example"),
        ("javascript:alert(1)", nil),
        ("https://bank.example\u{202E}moc.live", nil),
        ("data:text/html,<script>", nil),
        ("HTTPS://door.example/x", "HTTPS://door.example/x"),
        ("https:///nohost", nil),
    ]

    @Test(arguments: links)
    func aURIIsALinkOnlyForHTTPWithItsHostShown(uri: String, link: String?) async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        fixture.feed.publish(LiveTap(record: TapRecord(time: Date(), reader: "Door", uri: uri, outcome: .matched)))
        try await fixture.test { client in
            let (cookie, _) = try await fixture.signIn(client)
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
                let page = String(buffer: response.body)
                let links = page.components(separatedBy: "<a href=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
                    .filter { !$0.hasPrefix("/") }
                #expect(links == (link.map { [Substring($0)] } ?? []))
            }
        }
    }

    @Test func theDoorLogPagesAlongTheIndexAndKeepsItsFilters() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let taps = (0..<250).map { (index: Int) -> TapRecord in
            let reader = index % 2 == 0 ? "Door" : "Desk"
            let outcome: TapRecord.Outcome = index % 5 == 0 ? .denied : .matched
            return TapRecord(
                time: start + Double(index), reader: reader, uid: "04A1B2C3D4E580", rule: "front-door",
                outcome: outcome)
        }
        try fixture.database.recordTaps(taps)
        try await fixture.test { client in
            let (cookie, _) = try await fixture.signIn(client)
            var uri: String? = "/history?reader=Door"
            var rows = 0
            var pages = 0
            while let next = uri {
                let page = try await client.execute(uri: next, method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.status == .ok)
                    return String(buffer: response.body)
                }
                rows += page.components(separatedBy: "<tr class=\"outcome-").count - 1
                #expect(!page.contains("<td>Desk</td>"))
                uri = Self.nextLink(in: page)
                pages += 1
            }
            #expect(rows == 125)
            #expect(pages == 2)
            try await client.execute(
                uri: "/history?outcome=denied&reader=Door", method: .get, headers: [.cookie: cookie]
            ) { response in
                let page = String(buffer: response.body)
                #expect(page.components(separatedBy: "<tr class=\"outcome-denied\">").count - 1 == 25)
                #expect(page.contains(#"<option value="denied" selected>"#))
            }
        }
    }

    @Test(arguments: TapExportFormat.allCases)
    func anExportStreamsEveryFilteredTap(format: TapExportFormat) async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let taps = (0..<5000).map { (index: Int) -> TapRecord in
            let outcome: TapRecord.Outcome = index % 2 == 0 ? .denied : .matched
            return TapRecord(
                time: start + Double(index) / 10, reader: "Door", uid: "04A1B2C3D4E580", rule: "front-door",
                outcome: outcome, detail: "tap \(index)")
        }
        try fixture.database.recordTaps(taps)
        try await fixture.test { client in
            let (cookie, _) = try await fixture.signIn(client)
            try await client.execute(
                uri: "/history/export.\(format.rawValue)?outcome=denied", method: .get, headers: [.cookie: cookie]
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"taps.\(format.rawValue)\"")
                let lines = String(buffer: response.body).split(whereSeparator: \.isNewline)
                #expect(lines.count == 2500 + (format == .csv ? 1 : 0))
                #expect(lines.last?.contains("tap 4998") == true)
                #expect(lines.allSatisfy { !$0.contains("matched") })
            }
        }
    }

    @Test func aSlowBrowserLosesEventsAndTheFeedCountsThemWithoutWaiting() async {
        let counted = Counter()
        let feed = LiveFeed(onDrop: { counted.add() })
        let stream = feed.subscribe()
        for index in 0..<(LiveFeed.bufferSize + 10) {
            feed.publish(LiveTap(record: TapRecord(time: Date(), reader: "r\(index)", outcome: .matched)))
        }
        #expect(feed.dropped == 10)
        #expect(counted.value == 10)
        var received = 0
        feed.finish()
        for await _ in stream { received += 1 }
        #expect(received == LiveFeed.bufferSize)
        #expect(feed.recentTaps.count == LiveFeed.recentCount)
    }

    @Test func presenceShowsTheTagOnEachReaderWhileItStaysThere() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        fixture.feed.readersChanged(["Desk": false, "Door": true])
        var tap = TapRecord(time: Date(), reader: "Door", uid: "04A1B2C3D4E580", outcome: .matched)
        tap.tagName = "alice"
        fixture.feed.publish(LiveTap(record: tap))
        try await fixture.test { client in
            let (cookie, _) = try await fixture.signIn(client)
            let page = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) {
                String(buffer: $0.body)
            }
            #expect(page.contains("<li>Desk: no tag</li>"))
            #expect(page.contains("<li>Door: alice (04A1B2C3D4E580) on it</li>"))
            fixture.feed.readersChanged(["Desk": false, "Door": false])
            let after = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) {
                String(buffer: $0.body)
            }
            #expect(after.contains("<li>Door: no tag</li>"))
        }
    }

    @Test func aTapHeldOnTheClaimedReaderIsEnrolled() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let (cookie, csrf) = try await fixture.signIn(client)
            async let posted = client.execute(
                uri: "/tags/enroll", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([
                    ("csrf", csrf), ("name", "carol"), ("groups", "staff, night"), ("reader", "Front Door"),
                ])
            ) { $0.status }
            // The router sees the claim and holds the next tag put on that reader.
            let claim = fixture.folder + "/.learning"
            for _ in 0..<500 where !FileManager.default.fileExists(atPath: claim) {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(FileManager.default.fileExists(atPath: claim))
            fixture.feed.publish(
                LiveTap(
                    record: TapRecord(time: Date(), reader: "Front Door", uid: "04C1C2C3D4E582", outcome: .ignored),
                    tech: "type2", isHeldForEnrollment: true))
            #expect(try await posted == .seeOther)
            #expect(!FileManager.default.fileExists(atPath: claim))
            let text = try String(contentsOfFile: fixture.folder + "/tags.yaml", encoding: .utf8)
            #expect(text.contains("name: carol"))
            #expect(text.contains("04C1C2C3D4E582"))
            #expect(text.contains("night"))
            try await client.execute(uri: "/tags", method: .get, headers: [.cookie: cookie]) { response in
                #expect(String(buffer: response.body).contains("Enrolled &quot;carol&quot; (04C1C2C3D4E582)"))
            }
        }
    }

    @Test func retryingAndDroppingADeliveryChangeTheOutbox() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        let failed = try fixture.database.insert(
            Delivery(
                kind: .webhook, eventID: "e1", rule: "door-log", target: "https://user:secret@logger.example/taps",
                method: .post, createdAt: Date(), retryFor: .seconds(60)))
        try fixture.database.record([
            DeliveryOutcome(
                id: failed.id, state: .failed, status: 500, error: "HTTP 500", nextAttemptAt: 0, finishedAt: 1)
        ])
        try await fixture.test { client in
            let (cookie, csrf) = try await fixture.signIn(client)
            try await client.execute(uri: "/deliveries", method: .get, headers: [.cookie: cookie]) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("door-log"))
                #expect(!page.contains("secret"))
            }
            try await client.execute(
                uri: "/deliveries/retry", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("csrf", csrf), ("id", "\(failed.id)")])
            ) { #expect($0.status == .seeOther) }
            #expect(try fixture.database.unfinishedOrFailedDeliveries().first?.state == .pending)
            // Without the confirmation, dropping asks first.
            try await client.execute(
                uri: "/deliveries/drop", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("csrf", csrf), ("id", "\(failed.id)")])
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/deliveries/drop?id=\(failed.id)")
            }
            #expect(try fixture.database.unfinishedOrFailedDeliveries().count == 1)
            try await client.execute(
                uri: "/deliveries/drop", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("csrf", csrf), ("id", "\(failed.id)"), ("confirmed", "yes")])
            ) { #expect($0.status == .seeOther) }
            #expect(try fixture.database.unfinishedOrFailedDeliveries().isEmpty)
        }
    }

    static func nextLink(in page: String) -> String? {
        guard let range = page.range(of: "<a href=\"/history?") else { return nil }
        let rest = page[range.lowerBound...]
        guard rest.contains("rel=\"next\"") else { return nil }
        let href = rest.dropFirst("<a href=\"".count).prefix { $0 != "\"" }
        return href.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#x3D;", with: "=")
            .replacingOccurrences(of: "&#61;", with: "=")
    }
}

/// A thread-safe count.
final class Counter: Sendable {
    let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
