/// The broker every `mqtt` action publishes to: the `mqtt:` block of a rules file (docs/rules.md, "`mqtt:`: the
/// broker"). At most one in a rule set.
public struct MQTTSettings: Sendable, Hashable {
    /// TLS files for an `mqtts://` broker.
    public struct TLSFiles: Sendable, Hashable {
        /// The CA bundle; nil means the system's trust store.
        public var ca: String?
        /// The client certificate, if any.
        public var certificate: String?
        /// The client certificate's key.
        public var key: String?
    }

    /// The URL as written, with `${…}` values masked (for messages).
    public var url: String
    /// The broker's host.
    public var host: String
    /// The broker's port (1883 for `mqtt://`, 8883 for `mqtts://` unless given).
    public var port: Int
    /// Whether the connection uses TLS (`mqtts://`).
    public var usesTLS: Bool
    /// The user name, if any.
    public var username: String?
    /// The password, if any (never printed).
    public var password: String?
    /// The MQTT client id, also a topic level of Home Assistant discovery.
    public var clientID: String
    /// The prefix of default topics and of `<prefix>/status`.
    public var topicPrefix: String
    /// TLS files (`mqtts://` only); nil uses the system's trust store and no client certificate.
    public var tls: TLSFiles?
    /// The keep-alive interval.
    public var keepAlive: Duration
    /// Home Assistant's discovery prefix when `homeAssistant` is set; nil when it is not.
    public var discoveryPrefix: String?
    /// Where the block is written.
    public var location: SourceLocation
    /// Whether every decision on a door reader is published to ``decisionsTopic`` (`decisions: true`;
    /// docs/operations.md, "The decision stream").
    public var publishesDecisions = false

    /// The decision stream's topic: `<topicPrefix>/decisions`.
    public var decisionsTopic: String { topicPrefix + "/decisions" }

    /// The client id as Home Assistant's discovery topics can carry it (their node id matches
    /// `[a-zA-Z0-9_-]+`): every other character, such as the `.` of `shelf.pi`, becomes `_`.
    public var discoveryNodeID: String {
        String(clientID.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }

    /// The status topic: `<topicPrefix>/status`, the host's status document, retained (docs/fleet.md, "The status
    /// document"), whose `state` is Home Assistant's availability.
    public var statusTopic: String { topicPrefix + "/status" }

    /// The client id an `mqtt:` block without `clientId` gets: `tagrouter-<hostname>`, the host name reduced to
    /// letters, digits and `-`. Other connections of the host (bundle sources, commands) start their ids with it.
    public static var defaultClientID: String { FileParser.defaultClientID() }

    /// The topic a reader's taps go to by default: `<topicPrefix>/<reader-id>/tag`.
    /// - Parameter reader: the PC/SC reader name.
    /// - Returns: the topic.
    public func tagTopic(reader: String) -> String {
        MQTTTopic.tagTopic(prefix: topicPrefix, reader: reader)
    }

    /// Where Home Assistant discovery's presence sensor reads whether a tag is on a reader: `<topicPrefix>/<reader
    /// id>/present`, `ON` or `OFF`, retained.
    /// - Parameter reader: the reader name.
    public func presenceTopic(reader: String) -> String {
        "\(topicPrefix)/\(MQTTTopic.readerID(reader))/present"
    }
}

extension MQTTSettings {
    /// Whether a password goes to a broker on another machine over plain `mqtt://`, readable on the network:
    /// `check` and `doctor` warn (a broker on `localhost`, `127.0.0.0/8` or `::1` is exempt).
    public var sendsPasswordInPlainText: Bool {
        password != nil && !usesTLS && !FileParser.isLoopback(host)
    }
}

extension MQTTSettings: CustomStringConvertible, CustomDebugStringConvertible {
    /// `mqtts://broker:8883 as client door-1 (user door, with a password)`: never the password itself.
    public var description: String {
        var text = "\(url) as client \(clientID)"
        if let username { text += " (user \(username)\(password == nil ? "" : ", with a password"))" }
        return text
    }
    /// The same as ``description``.
    public var debugDescription: String { description }
}
