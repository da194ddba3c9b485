/// What writing one tag did: returned by ``TagWriter`` once the tag has been read back and holds the message.
public struct TagWriteResult: Sendable, Hashable {
    /// The UID read with `FF CA 00 00 00`, if the reader returned one.
    public var uid: [UInt8]?
    /// The tag technology.
    public var technology: TagTechnology
    /// The message size in bytes (0 for an empty message).
    public var bytesWritten: Int
    /// The most bytes a message may have on this tag, when the writer knows it.
    public var capacity: Int?
    /// Every command sent, the reads before the write and the read-back included.
    public var commands: Int
    /// Whether the tag was made read-only.
    public var isLocked: Bool

    /// Creates a result.
    /// - Parameters:
    ///   - uid: the UID.
    ///   - technology: the technology.
    ///   - bytesWritten: the message size.
    ///   - capacity: the tag's capacity, if known.
    ///   - commands: the commands sent.
    ///   - isLocked: whether the tag was made read-only.
    public init(
        uid: [UInt8]?, technology: TagTechnology, bytesWritten: Int, capacity: Int?, commands: Int, isLocked: Bool
    ) {
        self.uid = uid
        self.technology = technology
        self.bytesWritten = bytesWritten
        self.capacity = capacity
        self.commands = commands
        self.isLocked = isLocked
    }
}
