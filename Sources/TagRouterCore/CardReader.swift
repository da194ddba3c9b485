public import NFCTag

/// Something that reads the tag on a reader: ``PCSCCardReader`` through pcscd, a scripted fake in tests.
public protocol CardReader: Sendable {
    /// Reads the card on `reader`.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - atr: the ATR the reader reported.
    /// - Returns: the UID, technology and NDEF content.
    /// - Throws: an error naming what failed (`PCSCError`, `NFCTagError`); ``ReadFailure`` classifies it.
    func read(reader: String, atr: [UInt8]) async throws -> TagReading

    /// Forgets any connection state: pcscd was lost, or the router is stopping.
    func reset() async

    /// The thread reads run on, if they have one of their own: the router handles reader events there, so a tap
    /// reaches its first command without another thread hop. `nil` (the default): Swift's global executor.
    var executor: (any TaskExecutor)? { get }
}

extension CardReader {
    /// No thread of its own.
    public var executor: (any TaskExecutor)? { nil }
}
