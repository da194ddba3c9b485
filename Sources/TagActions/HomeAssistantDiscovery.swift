import Foundation
import JSONOutput
public import TagRules

/// The Home Assistant MQTT discovery messages of one reader (docs/rules.md, "Home Assistant discovery"): a `tag`
/// scanner whose topic is the reader's default tag topic, an `event` entity fed by the same topic (`tap`,
/// `removed`, `held`, `returned`), and a `binary_sensor` that says whether a tag is on the reader.
public struct HomeAssistantDiscovery: Sendable, Hashable, Encodable {
    /// The `device` object.
    public struct Device: Sendable, Hashable, Encodable {
        /// `tagrouter_<node id>_<reader-id>` (the node id: ``TagRules/MQTTSettings/discoveryNodeID``).
        public var identifiers: [String]
        /// The reader name.
        public var name: String
        /// `TagRouter`.
        public var manufacturer: String
        /// The reader name.
        public var model: String
        /// The TagRouter version.
        public var swVersion: String

        enum CodingKeys: String, CodingKey {
            case identifiers, name, manufacturer, model
            case swVersion = "sw_version"
        }
    }

    /// The `origin` object: what published the discovery message (Home Assistant logs and shows it).
    public struct Origin: Sendable, Hashable, Encodable {
        /// `TagRouter`.
        public var name: String
        /// The TagRouter version.
        public var swVersion: String

        enum CodingKeys: String, CodingKey {
            case name
            case swVersion = "sw_version"
        }
    }

    /// Where the reader's taps are published.
    public var topic: String
    /// How Home Assistant reads the tag id: the `ha_tag_id` of a `tap` or `returned`, nothing for the later
    /// events (`removed`, `held`) published to the same topic, which Home Assistant then ignores.
    public var valueTemplate: String
    /// The reader as a device.
    public var device: Device
    /// TagRouter, as the origin of the message.
    public var origin: Origin
    let readerID: String
    let nodeID: String
    let statusTopic: String
    let presenceTopic: String

    /// The tag scanner's template: a tag id for taps and returns only (documents of earlier releases have no
    /// `event`: taps).
    static let tagTemplate =
        "{% if value_json.get('event', 'tap') in ('tap', 'returned') %}{{ value_json.ha_tag_id }}{% endif %}"

    /// The event entity's template: the event document without its `records` (Home Assistant's recorder stores
    /// every attribute of every event), with `event_type` set to its `event`.
    static let eventTemplate =
        "{{ dict(value_json.items() | rejectattr('0', 'eq', 'records') | list, "
        + "event_type=value_json.get('event', 'tap')) | to_json }}"

    /// Where Home Assistant reads whether the reader's host is up: the status document's `state` on
    /// `<topicPrefix>/status` (`online`, or `offline` from the last will or a clean stop).
    struct Availability: Encodable {
        var topic: String
        var valueTemplate = "{{ value_json.state }}"
        var payloadAvailable = "online"
        var payloadNotAvailable = "offline"

        enum CodingKeys: String, CodingKey {
            case topic
            case valueTemplate = "value_template"
            case payloadAvailable = "payload_available"
            case payloadNotAvailable = "payload_not_available"
        }
    }

    /// An entity of the reader's device beside the tag scanner: the `event` entity (`eventTypes`,
    /// `valueTemplate`) or the presence sensor (`payloadOn`, `payloadOff`); what one does not use is left out.
    struct Entity: Encodable {
        var name: String
        var uniqueID: String
        var stateTopic: String
        var availability: [Availability]
        var device: Device
        var origin: Origin
        var eventTypes: [String]?
        var valueTemplate: String?
        var payloadOn: String?
        var payloadOff: String?

        enum CodingKeys: String, CodingKey {
            case name, device, origin, availability
            case uniqueID = "unique_id"
            case stateTopic = "state_topic"
            case eventTypes = "event_types"
            case valueTemplate = "value_template"
            case payloadOn = "payload_on"
            case payloadOff = "payload_off"
        }
    }

    enum CodingKeys: String, CodingKey {
        case topic, device, origin
        case valueTemplate = "value_template"
    }

    /// The discovery message of a reader.
    /// - Parameters:
    ///   - settings: the broker settings (client id, topic prefix).
    ///   - reader: the PC/SC reader name.
    ///   - version: the TagRouter version.
    public init(settings: MQTTSettings, reader: String, version: String) {
        readerID = MQTTTopic.readerID(reader)
        nodeID = settings.discoveryNodeID
        topic = settings.tagTopic(reader: reader)
        statusTopic = settings.statusTopic
        presenceTopic = settings.presenceTopic(reader: reader)
        valueTemplate = Self.tagTemplate
        device = Device(
            identifiers: ["tagrouter_\(nodeID)_\(readerID)"], name: reader, manufacturer: "TagRouter",
            model: reader, swVersion: version)
        origin = Origin(name: "TagRouter", swVersion: version)
    }

    /// `<discoveryPrefix>/tag/<node id>/<reader-id>/config`.
    /// - Parameter prefix: the discovery prefix (`homeassistant`).
    /// - Returns: the topic.
    public func topic(prefix: String) -> String {
        "\(prefix)/tag/\(nodeID)/\(readerID)/config"
    }

    /// The JSON payload of the tag scanner (sorted keys, slashes unescaped).
    /// - Returns: the bytes.
    public func payload() -> [UInt8] {
        Self.json(self)
    }

    /// Every discovery message of the reader: the tag scanner, the event entity and the presence sensor.
    /// - Parameter prefix: the discovery prefix (`homeassistant`).
    /// - Returns: each message's topic and payload.
    public func messages(prefix: String) -> [(topic: String, payload: [UInt8])] {
        let unique = device.identifiers[0]
        let availability = [Availability(topic: statusTopic)]
        let event = Entity(
            name: "Tag event", uniqueID: unique + "_event", stateTopic: topic, availability: availability,
            device: device, origin: origin, eventTypes: PresentationEventKind.allCases.map(\.rawValue),
            valueTemplate: Self.eventTemplate)
        let presence = Entity(
            name: "Tag present", uniqueID: unique + "_present", stateTopic: presenceTopic,
            availability: availability, device: device, origin: origin, payloadOn: "ON", payloadOff: "OFF")
        return [
            (topic(prefix: prefix), payload()),
            ("\(prefix)/event/\(nodeID)/\(readerID)/config", Self.json(event)),
            ("\(prefix)/binary_sensor/\(nodeID)/\(readerID)/config", Self.json(presence)),
        ]
    }

    private static func json(_ value: some Encodable) -> [UInt8] {
        // Encoding strings and arrays of strings cannot fail.
        Array(try! JSONOutput.data(value))
    }
}
