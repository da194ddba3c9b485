/// An error from pcsc-lite, carrying the failing call, the reader (when there is one) and the pcsc-lite code.
public struct PCSCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pcsc-lite call that failed, such as `SCardConnect`.
    public var call: String
    /// The reader the call was about, if any.
    public var reader: String?
    /// The pcsc-lite return code.
    public var code: UInt32

    /// Creates an error.
    /// - Parameters:
    ///   - call: the failing pcsc-lite call.
    ///   - reader: the reader name, if any.
    ///   - code: the pcsc-lite return code.
    public init(call: String, reader: String? = nil, code: UInt32) {
        self.call = call
        self.reader = reader
        self.code = code
    }

    /// One sentence: `reader "Virtual PCD 00 00": SCardConnect failed: 0x80100069`.
    public var description: String {
        let hex = "0x" + String(code, radix: 16, uppercase: true)
        if let reader {
            return "reader \"\(reader)\": \(call) failed: \(hex)"
        }
        return "\(call) failed: \(hex)"
    }
}
