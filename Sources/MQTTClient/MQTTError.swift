/// A libmosquitto call that failed: which call, its error code and the library's sentence for it.
public struct MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The failing call, such as `mosquitto_publish`.
    public var call: String
    /// libmosquitto's error code (`MOSQ_ERR_*`).
    public var code: Int32
    /// What went wrong, in words.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - call: the failing call.
    ///   - code: the `MOSQ_ERR_*` code.
    ///   - message: the explanation.
    public init(call: String, code: Int32, message: String) {
        self.call = call
        self.code = code
        self.message = message
    }

    /// `mosquitto_publish: Invalid function arguments provided (MOSQ_ERR 3)`.
    public var description: String { "\(call): \(message) (MOSQ_ERR \(code))" }
}
