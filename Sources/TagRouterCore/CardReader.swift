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

    /// The card connection of the tap that has just read on `reader`, still open (tag read or not), so that the
    /// reader's own commands (LED and buzzer: ``ReaderSignaller``) can go over it; `nil` when the tap has none
    /// (the connection failed) or when the reader keeps none (the default).
    /// - Parameter reader: the reader name.
    /// - Returns: the connection, or `nil`.
    func tapConnection(reader: String) -> (any CardChannel)?

    /// Releases the card connection of a tap that read on `reader`: the router calls it once per tap, on the
    /// reader's thread, right after the tap's outcome is signalled. The default does nothing.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - connection: the tap's connection (``tapConnection(reader:)`` right after its read), so that a later
    ///     tap's connection is never the one released.
    func endTap(reader: String, connection: (any CardChannel)?)

    /// Opens `reader` directly, card or no card, for its own commands (`SCARD_SHARE_DIRECT`, `SCardControl`),
    /// on the reader's thread; `nil` when this reader keeps no such connection (the default).
    /// - Parameter reader: the reader name.
    /// - Returns: the connection, which the caller closes.
    /// - Throws: what opening it threw (`PCSCError`).
    func openDirect(reader: String) async throws -> (any ReaderControl)?
}

/// A reader opened for its own commands (``CardReader/openDirect(reader:)``).
public protocol ReaderControl: Sendable {
    /// Sends a control command (`SCardControl`).
    /// - Parameters:
    ///   - code: the control code.
    ///   - command: the bytes.
    /// - Returns: the answer.
    /// - Throws: what the driver answered (`PCSCError`).
    func control(_ code: UInt32, _ command: [UInt8]) async throws -> [UInt8]

    /// Closes the connection.
    func close() async
}

extension CardReader {
    /// Nothing kept per reader.
    public func readerRemoved(_ reader: String) {}

    /// No thread of its own.
    public func executor(for reader: String) -> (any TaskExecutor)? { nil }

    /// No connection kept.
    public func tapConnection(reader: String) -> (any CardChannel)? { nil }

    /// Nothing to release.
    public func endTap(reader: String, connection: (any CardChannel)?) {}

    /// No direct connection.
    public func openDirect(reader: String) async throws -> (any ReaderControl)? { nil }
}
