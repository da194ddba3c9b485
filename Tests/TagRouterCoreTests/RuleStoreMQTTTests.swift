import Foundation
import Logging
import TagRules
import TestSupport
import Testing

@testable import TagRouterCore

/// A reload that changes the `mqtt:` block says the router keeps its connection until restarted; one that
/// only moves it, or changes nothing about it, says nothing.
@Suite struct RuleStoreMQTTTests {
    static func write(_ broker: String, to path: String) throws {
        try "version: 1\n\(broker)rules: []\n".write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test(arguments: [
        ("mqtt: {url: 'mqtt://a:1883', clientId: x}\n", false),
        ("\n\nmqtt: {url: 'mqtt://a:1883', clientId: x}\n", false),
        ("mqtt: {url: 'mqtt://b:1883', clientId: x}\n", true),
        ("", true),
    ])
    func aChangedBrokerIsLoggedOnReload(after: String, warns: Bool) throws {
        let path = NSTemporaryDirectory() + "rulestore-\(UUID().uuidString).yaml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.write("mqtt: {url: 'mqtt://a:1883', clientId: x}\n", to: path)
        let lines = LogRecorder.Lines()
        let logger = Logger(label: "test") { _ in LogRecorder(lines: lines) }
        let store = RuleStore(
            sources: [path], environment: [:],
            initial: try RuleSet.load(sources: [path], environment: [:]).get(), logger: logger)
        try Self.write(after, to: path)
        #expect(store.reload())
        let warning =
            "rules.reloaded: the mqtt: block changed; the router keeps its broker connection until it is restarted"
        #expect(lines.with(message: warning).count == (warns ? 1 : 0))
    }
}
