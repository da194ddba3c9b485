import Foundation
public import TagRules

/// The Home Assistant MQTT discovery message of one reader: a `tag` scanner device whose topic is the reader's
/// default tag topic (docs/rules.md, "Home Assistant discovery").
public struct HomeAssistantDiscovery: Sendable, Hashable, Encodable {
    /// The `device` object.
    public struct Device: Sendable, Hashable, Encodable {
        /// `tagrouter_<clientId>_<reader-id>`.
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

    /// Where the reader's taps are published.
    public var topic: String
    /// How Home Assistant reads the tag id: `{{ value_json.ha_tag_id }}`.
    public var valueTemplate: String
    /// The reader as a device.
    public var device: Device
    let readerID: String
    let clientID: String

    enum CodingKeys: String, CodingKey {
        case topic, device
        case valueTemplate = "value_template"
    }

    /// The discovery message of a reader.
    /// - Parameters:
    ///   - settings: the broker settings (client id, topic prefix).
    ///   - reader: the PC/SC reader name.
    ///   - version: the TagRouter version.
    public init(settings: MQTTSettings, reader: String, version: String) {
        readerID = MQTTTopic.readerID(reader)
        clientID = settings.clientID
        topic = settings.tagTopic(reader: reader)
        valueTemplate = "{{ value_json.ha_tag_id }}"
        device = Device(
            identifiers: ["tagrouter_\(settings.clientID)_\(readerID)"], name: reader, manufacturer: "TagRouter",
            model: reader, swVersion: version)
    }

    /// `<discoveryPrefix>/tag/<clientId>/<reader-id>/config`.
    /// - Parameter prefix: the discovery prefix (`homeassistant`).
    /// - Returns: the topic.
    public func topic(prefix: String) -> String {
        "\(prefix)/tag/\(clientID)/\(readerID)/config"
    }

    /// The JSON payload (sorted keys, slashes unescaped).
    /// - Returns: the bytes.
    public func payload() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings and arrays of strings cannot fail.
        return Array(try! encoder.encode(self))
    }
}
