public import NFCTag
public import PCSC

/// Reads the card on a reader: connect, run the tag reader, disconnect, all on the context's thread (after a
/// successful read, the disconnect waits for the thread's current job: the tap's decision and dispatch).
public enum CardReading {
    /// Connects to the card in `reader` and reads its NDEF content.
    ///
    /// Runs on the context's dedicated thread, so each command calls pcsc-lite without a thread hop and nothing
    /// blocks the cooperative pool. The card is left in place on disconnect (`SCARD_LEAVE_CARD`). After a
    /// successful read the disconnect is queued behind the thread's current job, which goes on to decode, match
    /// and dispatch: a webhook's request is on its way before the card is released (docs/development.md,
    /// "Where the time goes"). A failed read disconnects at once.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - atr: the ATR the watcher reported.
    ///   - context: an established context.
    /// - Returns: the UID, technology and NDEF content.
    /// - Throws: `PCSCError` when the connection fails, `NFCTagError` when the read fails (tag removed, malformed
    ///   capability container or TLV).
    public static func read(reader: String, atr: [UInt8], context: PCSCContext) async throws -> TagReading {
        try await context.withThread {
            let connection = try await context.connect(to: reader)
            do {
                let reading = try await TagReader().read(atr: atr, channel: connection)
                connection.disconnectAfterCurrentJob()
                return reading
            } catch {
                await connection.disconnect()
                throw error
            }
        }
    }
}
