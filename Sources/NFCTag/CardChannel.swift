/// A channel to one card on a reader: a command APDU goes in, the response APDU (data and status word) comes out.
///
/// `PCSC` implements it over `SCardTransmit`; tests implement it with a scripted exchange.
public protocol CardChannel: Sendable {
    /// Sends one command APDU and returns the full response, status word included.
    /// - Parameter command: the command APDU bytes.
    /// - Returns: the response APDU (data followed by SW1 SW2).
    /// - Throws: an error when the card cannot be reached (removed, reset, reader gone).
    func transmit(_ command: [UInt8]) async throws -> [UInt8]
}
