import CMosquitto
import Foundation
import Synchronization

/// One client connection to an MQTT broker through libmosquitto, kept up for ever on a dedicated thread.
///
/// ``start()`` starts the network thread: it connects, runs libmosquitto's loop, and when the connection fails
/// or ends, waits (the reconnect delay, doubling from ``MQTTOptions/minimumReconnectDelay`` to
/// ``MQTTOptions/maximumReconnectDelay``) and connects again, until ``stop()``. Every blocking call
/// (name resolution, `connect`, TLS handshake, `select`) happens on that thread, never on Swift's cooperative
/// pool. What happens is reported through the `onEvent` closure, called on the network thread in order.
///
/// ``publish(_:)`` and ``subscribe(_:qos:)`` may be called from any thread: libmosquitto is told it is used
/// from several threads (`mosquitto_threaded_set`), so they only queue packets for the network thread.
/// QoS 1 publications not yet acknowledged stay in libmosquitto's queue across reconnections and are sent
/// again, marked DUP, after the next CONNACK.
///
/// `@unchecked Sendable`: the libmosquitto handle is safe to use from several threads once
/// `mosquitto_threaded_set(true)` is set (its queues and state are behind its own mutexes); the Swift state is
/// in atomics and a mutex.
public final class MQTTConnection: @unchecked Sendable {
    /// libmosquitto's process-wide initialisation, done once.
    private static let library: Int32 = mosquitto_lib_init()

    private let handle: OpaquePointer
    /// The options it was created with.
    public let options: MQTTOptions
    private let onEvent: @Sendable (MQTTEvent) -> Void
    private let isStopping = Atomic<Bool>(false)
    private let isStarted = Atomic<Bool>(false)
    private let isSessionUp = Atomic<Bool>(false)
    private let wasRefused = Atomic<Bool>(false)
    private let lastLibraryError = Mutex<String?>(nil)

    /// Creates the connection (not yet connected: call ``start()``).
    /// - Parameters:
    ///   - options: the broker, identity, credentials, TLS and last will.
    ///   - onEvent: called on the network thread for every ``MQTTEvent``, in order; keep it short.
    /// - Throws: ``MQTTError`` when libmosquitto refuses an option (an unreadable CA file, an invalid will
    ///   topic, …).
    public init(options: MQTTOptions, onEvent: @escaping @Sendable (MQTTEvent) -> Void) throws {
        _ = Self.library
        guard let handle = mosquitto_new(options.clientID, options.cleanSession, nil) else {
            throw MQTTError(call: "mosquitto_new", code: Self.code(MOSQ_ERR_NOMEM), message: "cannot create a client")
        }
        self.handle = handle
        self.options = options
        self.onEvent = onEvent
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        try check(mosquitto_threaded_set(handle, true), "mosquitto_threaded_set")
        try check(mosquitto_max_inflight_messages_set(handle, UInt32(options.maxInflight)), "max inflight")
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        if options.username != nil || options.password != nil {
            try check(
                mosquitto_username_pw_set(handle, options.username ?? "", options.password), "mosquitto_username_pw_set"
            )
        }
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(
                    handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos), will.retain)
            }
            try check(rc, "mosquitto_will_set", about: "last will topic '\(will.topic)'")
        }
        if let tls = options.tls {
            try configureTLS(tls)
        }
        installCallbacks()
    }

    deinit {
        mosquitto_destroy(handle)
    }

    /// Starts the network thread (once; later calls do nothing).
    public func start() {
        guard !isStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { self.runLoop() }
        thread.name = "mqtt \(options.host):\(options.port)"
        thread.start()
    }

    /// Sends DISCONNECT (so the broker does not publish the last will) and ends the network thread, which then
    /// reports ``MQTTEvent/stopped``.
    public func stop() {
        isStopping.store(true, ordering: .releasing)
        _ = mosquitto_disconnect(handle)
    }

    /// Whether CONNACK 0 was received and the connection has not ended since.
    public var isConnected: Bool { isSessionUp.load(ordering: .acquiring) }

    /// Queues a publication for the network thread.
    ///
    /// A QoS 1 message handed over while the connection is down stays in libmosquitto's queue and is sent after
    /// the next CONNACK; a QoS 0 message then fails.
    /// - Parameter message: the message.
    /// - Returns: the message id; ``MQTTEvent/acknowledged(messageID:)`` reports its PUBACK (QoS 1).
    /// - Throws: ``MQTTError`` for an invalid topic, an oversized payload, or (QoS 0) no connection.
    @discardableResult
    public func publish(_ message: MQTTMessage) throws -> Int32 {
        var messageID: Int32 = 0
        let rc = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish(
                handle, &messageID, message.topic, Int32(bytes.count), bytes.baseAddress, Int32(message.qos),
                message.retain)
        }
        if rc == Self.code(MOSQ_ERR_NO_CONN) && message.qos > 0 { return messageID }
        try check(rc, "mosquitto_publish", about: "topic '\(message.topic)'")
        return messageID
    }

    /// Subscribes to a topic filter (wildcards allowed). Subscriptions are not restored by a reconnection:
    /// subscribe again after each ``MQTTEvent/connected``.
    /// - Parameters:
    ///   - filter: the topic filter.
    ///   - qos: the maximum QoS of messages received.
    /// - Throws: ``MQTTError`` for an invalid filter or no connection.
    public func subscribe(_ filter: String, qos: Int = 1) throws {
        try check(mosquitto_subscribe(handle, nil, filter, Int32(qos)), "mosquitto_subscribe", about: filter)
    }

    // MARK: The network thread

    private func runLoop() {
        var delay = options.minimumReconnectDelay
        var hasTarget = false
        while !isStopping.load(ordering: .acquiring) {
            lastLibraryError.withLock { $0 = nil }
            wasRefused.store(false, ordering: .relaxed)
            let rc =
                hasTarget
                ? mosquitto_reconnect(handle)
                : mosquitto_connect(handle, options.host, Int32(options.port), Int32(options.keepAliveSeconds))
            if rc != Self.code(MOSQ_ERR_INVAL) { hasTarget = true }
            if rc != Self.code(MOSQ_ERR_SUCCESS) {
                if isStopping.load(ordering: .acquiring) { break }
                onEvent(.connectFailed(reason: reason(rc)))
            } else {
                var loopRC: Int32
                var stopDeadline: ContinuousClock.Instant?
                repeat {
                    loopRC = mosquitto_loop(handle, 100, 1)
                    if isStopping.load(ordering: .acquiring) {
                        // After stop(), give the DISCONNECT two seconds to go out.
                        let deadline = stopDeadline ?? .now + .seconds(2)
                        stopDeadline = deadline
                        if ContinuousClock.now > deadline { break }
                    }
                } while loopRC == Self.code(MOSQ_ERR_SUCCESS)
                let wasUp = isSessionUp.exchange(false, ordering: .acquiringAndReleasing)
                if wasUp { delay = options.minimumReconnectDelay }
                if isStopping.load(ordering: .acquiring) { break }
                if wasRefused.load(ordering: .relaxed) {
                    // Reported by the CONNACK callback.
                } else if wasUp {
                    onEvent(.lost(reason: reason(loopRC)))
                } else {
                    onEvent(.connectFailed(reason: reason(loopRC)))
                }
            }
            let wakeAt = ContinuousClock.now + delay
            while !isStopping.load(ordering: .acquiring) && ContinuousClock.now < wakeAt {
                usleep(20_000)
            }
            delay = min(delay * 2, options.maximumReconnectDelay)
        }
        isSessionUp.store(false, ordering: .releasing)
        onEvent(.stopped)
    }

    private func installCallbacks() {
        mosquitto_connect_callback_set(handle) { _, object, rc in
            guard let connection = MQTTConnection.from(object) else { return }
            if rc == 0 {
                connection.isSessionUp.store(true, ordering: .releasing)
                connection.onEvent(.connected)
            } else {
                connection.wasRefused.store(true, ordering: .relaxed)
                let reason = String(cString: mosquitto_connack_string(rc))
                connection.onEvent(.refused(code: Int(rc), reason: reason))
            }
        }
        mosquitto_publish_callback_set(handle) { _, object, messageID in
            MQTTConnection.from(object)?.onEvent(.acknowledged(messageID: messageID))
        }
        mosquitto_message_callback_set(handle) { _, object, message in
            guard let connection = MQTTConnection.from(object), let message = message?.pointee,
                let topic = message.topic
            else { return }
            let payload =
                message.payloadlen > 0 && message.payload != nil
                ? Array(UnsafeRawBufferPointer(start: message.payload, count: Int(message.payloadlen))) : []
            connection.onEvent(
                .message(
                    MQTTMessage(
                        topic: String(cString: topic), payload: payload, qos: Int(message.qos),
                        retain: message.retain)))
        }
        mosquitto_log_callback_set(handle) { _, object, level, text in
            guard level & Int32(MOSQ_LOG_ERR) != 0, let connection = MQTTConnection.from(object), let text else {
                return
            }
            let line = String(cString: text)
            connection.lastLibraryError.withLock { $0 = line }
        }
    }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTConnection? {
        object.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: Errors

    private func configureTLS(_ tls: MQTTOptions.TLS) throws {
        for file in [tls.caFile, tls.certificateFile, tls.keyFile].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: file) {
            throw MQTTError(
                call: "mosquitto_tls_set", code: Self.code(MOSQ_ERR_INVAL), message: "cannot read TLS file \(file)")
        }
        let caPath = tls.caFile == nil ? "/etc/ssl/certs" : nil
        try check(
            mosquitto_tls_set(handle, tls.caFile, caPath, tls.certificateFile, tls.keyFile, nil), "mosquitto_tls_set")
        if tls.caFile == nil { _ = mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1) }
        // The broker's certificate is verified (SSL_VERIFY_PEER, 1), and TLS 1.2 is the oldest version spoken, as
        // for webhooks and association files (docs/RELIABILITY.md, "Tag data decides nothing it shouldn't").
        try check(mosquitto_tls_opts_set(handle, 1, "tlsv1.2", nil), "mosquitto_tls_opts_set")
    }

    /// The words for a failed connect or loop: libmosquitto's sentence, errno's for system errors, and the
    /// library's last error log line (TLS failures are only explained there).
    private func reason(_ rc: Int32) -> String {
        var text =
            rc == Self.code(MOSQ_ERR_ERRNO)
            ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
        if text.hasSuffix(".") { text.removeLast() }
        if let detail = lastLibraryError.withLock({ $0 }) { text += " (\(detail))" }
        return text
    }

    private func check(_ rc: Int32, _ call: String, about subject: String? = nil) throws {
        guard rc != Self.code(MOSQ_ERR_SUCCESS) else { return }
        var message = String(cString: mosquitto_strerror(rc))
        if let subject { message = "\(subject): \(message)" }
        throw MQTTError(call: call, code: rc, message: message)
    }

    /// A `mosq_err_t` constant as the `Int32` libmosquitto's functions return.
    static func code(_ error: mosq_err_t) -> Int32 {
        Int32(truncatingIfNeeded: error.rawValue)
    }
}
