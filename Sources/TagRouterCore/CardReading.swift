public import NFCTag
public import PCSC

/// Reads the card on a reader: connect, run the tag reader, disconnect, all on the context's thread.
public enum CardReading {
    /// Connects to the card in `reader` and reads its NDEF content.
    ///
    /// Runs on the context's dedicated thread, so each command calls pcsc-lite without a thread hop and nothing
    /// blocks the cooperative pool. The card is left in place on disconnect (`SCARD_LEAVE_CARD`).
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
                await connection.disconnect()
                return reading
            } catch {
                await connection.disconnect()
                throw error
            }
        }
    }
}
