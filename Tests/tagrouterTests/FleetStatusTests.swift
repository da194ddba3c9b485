import Foundation
import RouterCommands
import TagActions
import Testing

/// `tagrouter fleet status` (docs/fleet.md, "Fleet status"): which hosts are behind, and the table and exit status
/// made of their status documents. Reading them from a real broker is FleetTests' part.
@Suite struct FleetStatusTests {
    static func document(
        state: String = "online", bundle: Int?, synchronized: Bool = true, refused: String? = nil
    ) -> [UInt8] {
        StatusDocument(
            state: state, version: "1.0",
            bundle: bundle.map { .init(version: $0, sha256: "ab12cd34ef56ab12", source: "s") },
            refusedBundle: refused.map { .init(version: 9, reason: $0, error: "why", source: "s", at: "t") },
            readers: [.init(name: "Door", state: "ready")], outbox: 2,
            clock: .init(synchronized: synchronized, source: "adjtimex"), uptime: 3_725, lockouts: [], updated: "t"
        ).payload()
    }

    @Test func aHostWithAnOlderBundleIsBehindAndTheStatusIsOne() {
        let hosts = FleetStatus.rows([
            "front": Self.document(bundle: 8),
            "back": Self.document(state: "offline", bundle: 7),
            "side": Self.document(bundle: nil, refused: "signature"),
        ])
        #expect(hosts.map(\.host) == ["back", "front", "side"])
        #expect(hosts.map(\.behind) == [true, false, true])
        let report = FleetStatus.report(hosts, json: false)
        #expect(report.status == 1)
        #expect(
            report.standardOutput == """
                HOST   STATE    BUNDLE           BEHIND  REFUSED       CLOCK   READERS  OUTBOX  UPTIME
                back   offline  v7 ab12cd34ef56  yes     -             synced  Door     2       1h2m
                front  online   v8 ab12cd34ef56  no      -             synced  Door     2       1h2m
                side   online   -                yes     v9 signature  synced  Door     2       1h2m

                """)
    }

    @Test(arguments: [
        (true, "online", Int32(0)),
        (false, "online", 1),
        (true, "offline", 1),
    ])
    func everyHostInStepIsZero(synchronized: Bool, state: String, status: Int32) {
        let hosts = FleetStatus.rows([
            "a": Self.document(bundle: 3), "b": Self.document(state: state, bundle: 3, synchronized: synchronized),
        ])
        #expect(FleetStatus.report(hosts, json: false).status == status)
        #expect(FleetStatus.report(hosts, json: true).status == status)
    }

    @Test func theLastWillAndUnreadableMessages() {
        let hosts = FleetStatus.rows([
            "gone": Array(#"{"state":"offline"}"#.utf8), "old": Array("online".utf8), "junk": Array("{".utf8),
        ])
        #expect(hosts.map(\.host) == ["gone", "junk", "old"])
        #expect(hosts.map { $0.status?.state } == ["offline", nil, "online"])
        #expect(hosts[1].problem == "not a status document (1 bytes)")
        #expect(FleetStatus.report(hosts, json: false).status == 1)
        #expect(
            FleetStatus.report([], json: false).errors == [
                "no status document on the broker: no host has published one"
            ])
    }

    @Test(arguments: [
        ("broker.example", "mqtt://broker.example:1883"),
        ("broker.example:1999", "mqtt://broker.example:1999"),
        ("mqtts://broker.example", "mqtts://broker.example:8883"),
        ("mqtt://[::1]:1884", "mqtt://[::1]:1884"),
        (":1883", "mqtt://127.0.0.1:1883"),
    ])
    func brokers(text: String, parsed: String) {
        #expect(BrokerAddress(argument: text)?.description == parsed)
    }

    @Test(arguments: ["https://broker.example", "mqtt://broker.example/topic", "broker example", ""])
    func notBrokers(text: String) {
        #expect(BrokerAddress(argument: text) == nil)
    }
}
