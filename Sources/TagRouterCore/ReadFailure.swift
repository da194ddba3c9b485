import NFCTag
import PCSC

/// Why a tag could not be read: the error and its class, which is the `kind` label of
/// `tagrouter_read_errors_total` (docs/operations.md, "Metrics").
public struct ReadFailure: Sendable {
    /// The classes of read failures.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The tag left the reader during the read.
        case tagRemoved = "tag_removed"
        /// The tag's capability container, TLVs or NDEF file are malformed.
        case malformed
        /// The tag's NDEF message does not decode.
        case ndef
        /// The tag or reader answered against the protocol.
        case `protocol`
        /// pcscd went away.
        case serviceLost = "service_lost"
        /// polkit or pcscd refused access to the reader.
        case accessRefused = "access_refused"
        /// Another pcsc-lite error.
        case pcsc
        /// Anything else.
        case other
    }

    /// The class.
    public var kind: Kind
    /// The sentence that explains it (the error's description).
    public var message: String

    /// Creates a failure.
    /// - Parameters:
    ///   - kind: the class.
    ///   - message: the explanation.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Classifies an error thrown by a ``CardReader``.
    /// - Parameter error: the error.
    public init(_ error: any Error) {
        self.init(kind: Self.kind(of: error), message: "\(error)")
    }

    static func kind(of error: any Error) -> Kind {
        if let error = error as? NFCTagError {
            switch error.code {
            case .tagRemoved: return .tagRemoved
            case .malformedCapabilityContainer, .malformedTLV, .malformedNDEFFile: return .malformed
            default: return .protocol
            }
        }
        if let error = error as? PCSCError {
            if error.isCardGone { return .tagRemoved }
            if error.isServiceLost { return .serviceLost }
            if error.isAccessRefused { return .accessRefused }
            return .pcsc
        }
        return .other
    }
}
