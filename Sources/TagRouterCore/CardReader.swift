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

    /// Forgets what is kept for one reader: it went away.
    /// - Parameter reader: the reader name.
    func readerRemoved(_ reader: String)

    /// The thread reads on `reader` run on, if they have one of their own: the router runs each tap there from
    /// its start to its dispatch, so that it reaches its first command with one thread hop and taps on other
    /// readers never wait for it. `nil` (the default): Swift's global executor.
    /// - Parameter reader: the reader name.
    /// - Returns: the executor, or `nil`.
    func executor(for reader: String) -> (any TaskExecutor)?
}

extension CardReader {
    /// Nothing kept per reader.
    public func readerRemoved(_ reader: String) {}

    /// No thread of its own.
    public func executor(for reader: String) -> (any TaskExecutor)? { nil }
}
