/// How to reach a broker: address, identity, credentials, TLS, keep-alive and last will.
public struct MQTTOptions: Sendable, Hashable {
    /// TLS settings for `mqtts://` brokers.
    public struct TLS: Sendable, Hashable {
        /// The CA bundle (PEM) that signs the broker's certificate; nil uses the system's trust store.
        public var caFile: String?
        /// The client certificate (PEM), if the broker asks for one.
        public var certificateFile: String?
        /// The client certificate's private key (PEM).
        public var keyFile: String?

        /// Creates TLS settings.
        /// - Parameters:
        ///   - caFile: the CA bundle, nil for the system's trust store.
        ///   - certificateFile: the client certificate, if any.
        ///   - keyFile: its private key.
        public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    /// The broker's host name or address.
    public var host: String
    /// The broker's TCP port.
    public var port: Int
    /// The MQTT client identifier (unique on the broker).
    public var clientID: String
    /// The user name, if the broker wants one.
    public var username: String?
    /// The password, if the broker wants one.
    public var password: String?
    /// TLS settings; nil for plain TCP.
    public var tls: TLS?
    /// The keep-alive interval in seconds.
    public var keepAliveSeconds: Int
    /// The last will the broker publishes when the connection ends without a DISCONNECT.
    public var will: MQTTMessage?
    /// How many QoS 1 publications may wait for their PUBACK at once (more wait in libmosquitto's queue).
    public var maxInflight: Int
    /// The first reconnection delay; it doubles after each failed attempt.
    public var minimumReconnectDelay: Duration
    /// The largest reconnection delay.
    public var maximumReconnectDelay: Duration
    /// Whether the broker forgets the session (subscriptions, queued messages) when the connection ends.
    public var cleanSession: Bool

    /// Creates options.
    /// - Parameters:
    ///   - host: the broker's host.
    ///   - port: the broker's port.
    ///   - clientID: the client identifier.
    ///   - username: the user name, if any.
    ///   - password: the password, if any.
    ///   - tls: TLS settings, nil for plain TCP.
    ///   - keepAliveSeconds: the keep-alive interval (default 30).
    ///   - will: the last will, if any.
    ///   - maxInflight: unacknowledged QoS 1 publications at once (default 200).
    ///   - minimumReconnectDelay: the first reconnection delay (default 1 s).
    ///   - maximumReconnectDelay: the largest reconnection delay (default 60 s).
    ///   - cleanSession: start a clean session on each connection (default true).
    public init(
        host: String, port: Int, clientID: String, username: String? = nil, password: String? = nil,
        tls: TLS? = nil, keepAliveSeconds: Int = 30, will: MQTTMessage? = nil, maxInflight: Int = 200,
        minimumReconnectDelay: Duration = .seconds(1), maximumReconnectDelay: Duration = .seconds(60),
        cleanSession: Bool = true
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.username = username
        self.password = password
        self.tls = tls
        self.keepAliveSeconds = keepAliveSeconds
        self.will = will
        self.maxInflight = max(1, maxInflight)
        self.minimumReconnectDelay = minimumReconnectDelay
        self.maximumReconnectDelay = max(minimumReconnectDelay, maximumReconnectDelay)
        self.cleanSession = cleanSession
    }
}
