internal import CPCSCLite
import Synchronization

/// A connection to the card in one reader (`SCardConnect`, shared, T=0 or T=1): command APDUs over `SCardTransmit`.
/// `TagRouterCore` makes it the `CardChannel` that `NFCTag`'s readers and writers use, so that neither of these two
/// modules imports the other.
///
/// Exchanges run on the owning context's thread. Disconnecting leaves the card powered (`SCARD_LEAVE_CARD`), so
/// other applications sharing the reader are not disturbed.
public final class CardConnection: Sendable {
    /// The reader the card is in.
    public let reader: String
    let handle: SCARDHANDLE
    let activeProtocol: DWORD
    let context: PCSCContext
    private let isDisconnected = Mutex(false)
    private let readerDuration: Mutex<Duration>

    /// The largest response pcsc-lite can return (`MAX_BUFFER_SIZE_EXTENDED`: extended APDUs).
    static let maximumResponseLength = 4 + 3 + (1 << 16) + 3 + 2
    /// The largest response to a short APDU (`MAX_BUFFER_SIZE`: 256 bytes of data, the status word, slack).
    static let shortResponseLength = 264

    /// The response buffer a command needs: extended commands (`00` after the header) may get 64 KiB back.
    static func responseLength(for command: [UInt8]) -> Int {
        command.count >= 7 && command[4] == 0 ? maximumResponseLength : shortResponseLength
    }

    init(reader: String, handle: SCARDHANDLE, activeProtocol: DWORD, context: PCSCContext, connectDuration: Duration) {
        self.readerDuration = Mutex(connectDuration)
        self.reader = reader
        self.handle = handle
        self.activeProtocol = activeProtocol
        self.context = context
    }

    deinit {
        let handle = handle
        if !isDisconnected.withLock({ $0 }) {
            context.thread.post { _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }
        }
    }

    /// Sends one command APDU and returns the response, status word included.
    /// - Parameter command: the command APDU.
    /// - Returns: the response APDU.
    /// - Throws: ``PCSCError`` from `SCardTransmit` naming the reader (`SCARD_E_NOT_TRANSACTED` also when the
    ///   response lacks a status word); ``PCSCError/isCardGone`` tells a tag that left during the exchange.
    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let handle = handle
        let reader = reader
        let activeProtocol = activeProtocol
        let (response, duration) = try await context.thread.run {
            var request = SCARD_IO_REQUEST(
                dwProtocol: UInt(activeProtocol), cbPciLength: UInt(MemoryLayout<SCARD_IO_REQUEST>.size))
            var response = [UInt8](repeating: 0, count: Self.responseLength(for: command))
            var length = DWORD(response.count)
            let start = ContinuousClock.now
            let rv = command.withUnsafeBufferPointer { commandBytes in
                SCardTransmit(
                    handle, &request, commandBytes.baseAddress, DWORD(commandBytes.count), nil, &response, &length)
            }
            let duration = ContinuousClock.now - start
            try check(rv, call: "SCardTransmit", reader: reader)
            // A response holds at least SW1 SW2. Some drivers (vpcd when the card leaves mid-exchange) report
            // success with no bytes: that is a failed exchange.
            guard length >= 2 else {
                throw PCSCError(call: "SCardTransmit", reader: reader, code: PCSCError.notTransacted)
            }
            response.removeSubrange(Int(length)...)
            return (response, duration)
        }
        readerDuration.withLock { $0 += duration }
        return response
    }

    /// The time spent inside pcsc-lite waiting on pcscd and the reader: `SCardConnect` and every `SCardTransmit`
    /// that returned a response. What a tap costs beyond it is the software's own time.
    public var timeInReader: Duration {
        readerDuration.withLock { $0 }
    }

    /// Disconnects, leaving the card powered. Safe to call more than once.
    public func disconnect() async {
        guard claimDisconnect() else { return }
        let handle = handle
        _ = try? await context.thread.run { _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }
    }

    /// Disconnects once the context's thread has finished the job it runs now, leaving the card powered: a tap
    /// read on that thread decides and starts its actions first (a webhook's request leaves about 40 µs sooner),
    /// and the card is released before the thread takes its next job. Safe to call more than once.
    public func disconnectAfterCurrentJob() {
        guard claimDisconnect() else { return }
        let handle = handle
        context.thread.post { _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }
    }

    /// Marks the connection disconnected; `true` for the one caller that gets to disconnect it.
    private func claimDisconnect() -> Bool {
        isDisconnected.withLock { disconnected in
            defer { disconnected = true }
            return !disconnected
        }
    }
}
