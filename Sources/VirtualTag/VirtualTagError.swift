/// Why a virtual tag could not be built or presented.
public enum VirtualTagError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The NDEF message does not fit the tag's memory.
    case messageTooLarge(tag: String, size: Int, capacity: Int)
    /// An option is out of range for this tag.
    case invalidOption(tag: String, option: String, reason: String)
    /// vpcd could not be reached.
    case connectionFailed(host: String, port: UInt16, reason: String)

    /// One sentence naming what failed and where.
    public var description: String {
        switch self {
        case .messageTooLarge(let tag, let size, let capacity):
            return "\(tag): a \(size)-byte NDEF message does not fit; \(capacity) bytes are free for it"
        case .invalidOption(let tag, let option, let reason):
            return "\(tag): option \(option) \(reason)"
        case .connectionFailed(let host, let port, let reason):
            return "vpcd at \(host):\(port): cannot connect (\(reason)); is pcscd running with the vpcd reader?"
        }
    }
}
