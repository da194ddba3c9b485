import Foundation
import TagActions
import TagRules
import Testing

/// Home Assistant discovery's messages as Home Assistant 2025.4 reads them (docs/rules.md, "Home Assistant
/// discovery"): topics its discovery pattern accepts whatever the client id, the `origin` block, and an event
/// entity that leaves the records out of its attributes.
@Suite struct HomeAssistantDiscoveryTests {
    /// Home Assistant's MQTT discovery topic pattern (homeassistant/components/mqtt/discovery.py):
    /// `<component>/[<node_id>/]<object_id>/config`, ids of `[a-zA-Z0-9_-]+`, after the prefix.
    static var discoveryTopic: Regex<(Substring, Substring, Substring?, Substring)> {
        #/^homeassistant/(\w+)/(?:([a-zA-Z0-9_-]+)/)?([a-zA-Z0-9_-]+)/config$/#
    }

    static func settings(clientID: String) throws -> MQTTSettings {
        let text = """
            version: 1
            mqtt: { url: "mqtt://127.0.0.1", clientId: "\(clientID)", homeAssistant: true }
            rules: []
            """
        let result = RuleSet.load(files: [("f.yaml", text)], environment: [:])
        return try #require(result.ruleSet?.mqtt, "\(result.diagnostics.map(\.headline))")
    }

    @Test(
        "every discovery topic matches Home Assistant's pattern, whatever the client id",
        arguments: ["shelf.pi", "tagrouter-door", "a.b.c_d-e", "x"])
    func topicsMatchHomeAssistantsPattern(clientID: String) throws {
        let discovery = HomeAssistantDiscovery(
            settings: try Self.settings(clientID: clientID), reader: "ACS ACR122U PICC Interface 00 00",
            version: "1.0")
        let messages = discovery.messages(prefix: "homeassistant")
        #expect(messages.count == 3)
        for message in messages {
            let match = try #require(message.topic.wholeMatch(of: Self.discoveryTopic), "\(message.topic)")
            #expect(match.output.2.map(String.init) == clientID.replacingOccurrences(of: ".", with: "_"))
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
            let origin = try #require(object["origin"] as? [String: String])
            #expect(origin == ["name": "TagRouter", "sw_version": "1.0"])
        }
    }

    @Test("a client id Home Assistant cannot carry is a warning at its place, and the node id it becomes")
    func clientIDWarning() {
        let result = RuleSet.load(
            files: [
                (
                    "f.yaml",
                    "version: 1\nmqtt: { url: 'mqtt://127.0.0.1', clientId: shelf.pi, homeAssistant: true }\nrules: []\n"
                )
            ],
            environment: [:])
        #expect(
            result.diagnostics.map(\.headline) == [
                "f.yaml:2:44: warning: Home Assistant's discovery topics cannot carry the '.' of clientId 'shelf.pi': "
                    + "its readers are announced under 'shelf_pi'"
            ])
    }

    @Test("the event entity's template leaves the records out and sets event_type")
    func eventTemplate() throws {
        let discovery = HomeAssistantDiscovery(
            settings: try Self.settings(clientID: "door"), reader: "Door", version: "1.0")
        let event = try #require(discovery.messages(prefix: "homeassistant").first { $0.topic.contains("/event/") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(event.payload)) as? [String: Any])
        #expect(
            object["value_template"] as? String
                == "{{ dict(value_json.items() | rejectattr('0', 'eq', 'records') | list, "
                + "event_type=value_json.get('event', 'tap')) | to_json }}")
    }

    @Test("the event entity and presence sensor are available while the status document's state is online")
    func availabilityReadsTheStatusDocument() throws {
        let discovery = HomeAssistantDiscovery(
            settings: try Self.settings(clientID: "door"), reader: "Door", version: "1.0")
        let entities = discovery.messages(prefix: "homeassistant").dropFirst()
        #expect(entities.count == 2)
        for entity in entities {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(entity.payload)) as? [String: Any])
            #expect(object["availability_topic"] == nil)
            #expect(
                object["availability"] as? [[String: String]] == [
                    [
                        "topic": "tagrouter/door/status", "value_template": "{{ value_json.state }}",
                        "payload_available": "online", "payload_not_available": "offline",
                    ]
                ])
        }
    }
}
