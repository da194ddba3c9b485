/// The one error type of `NFCTag`: what went wrong reading a tag, and where.
///
/// Its description is one sentence naming the failing step and, for layout problems, the byte offset
/// (`Type 2 TLV at byte 18: NDEF length 300 runs past the data area (144 bytes)`).
public struct NFCTagError: Error, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// The channel failed during a command: the tag left the field (or the reader went away). Nothing
        /// partial is returned; `cause` holds the channel's error.
        case tagRemoved
        /// A Type 2 capability container or Type 4 CC file that cannot be used.
        case malformedCapabilityContainer
        /// A Type 2 TLV stream that is truncated or whose lengths run past the data area.
        case malformedTLV
        /// A Type 4 NDEF file whose NLEN does not fit the file.
        case malformedNDEFFile
        /// A command answered a status word other than `90 00` where success was required.
        case unexpectedStatus
        /// A command answered data of a shape the protocol does not allow (no status word, wrong length).
        case unexpectedResponse
        /// The capability container forbids reading the NDEF data.
        case readAccessDenied
        /// The NDEF message is larger than this reader accepts.
        case messageTooLarge
        /// The ATR names a card kind this module cannot read (Topaz, ISO 14443B-3 storage cards).
        case unsupportedCard
        /// The tag may not be written: its capability container, attribute block, lock bits, GPB, access bits or
        /// write access forbid it, or it refused the first write command. Nothing was written.
        case readOnly
        /// The message is larger than the tag holds; the message names both sizes. Nothing was written.
        case insufficientCapacity
        /// The tag refused the key needed to read or write it (MIFARE Classic keys).
        case authenticationFailed
        /// The tag read back after a write does not hold what was written.
        case verificationFailed
    }

    /// The kind of failure.
    public var code: Code
    /// The byte offset the problem was found at, when it concerns a layout: tag memory address for Type 2,
    /// offset in the CC or NDEF file for Type 4, card byte address (block × 16 + byte) for MIFARE Classic.
    public var offset: Int?
    /// The sentence describing the problem, without the cause.
    public var message: String
    /// The underlying error, for `tagRemoved`.
    public var cause: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - offset: the byte offset concerned, if any.
    ///   - message: one sentence naming what and where.
    ///   - cause: the underlying error, if any.
    public init(_ code: Code, offset: Int? = nil, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.offset = offset
        self.message = message
        self.cause = cause
    }

    /// The message, followed by the cause in parentheses when there is one.
    public var description: String {
        guard let cause else { return message }
        return "\(message) (\(cause))"
    }
}
