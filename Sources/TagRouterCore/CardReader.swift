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
}
