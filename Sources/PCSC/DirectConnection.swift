internal import CPCSCLite
import Synchronization

/// A direct connection to a reader (`SCardConnect` with `SCARD_SHARE_DIRECT` and no protocol), card or no card:
/// the reader's own commands go through `SCardControl` (docs/tags.md, "Reader feedback").
///
/// Calls run on the owning context's thread.
public final class DirectConnection: Sendable {
    /// The reader.
    public let reader: String
    let handle: SCARDHANDLE
    let context: PCSCContext
    private let isDisconnected = Mutex(false)

    /// pcsc-lite's `CM_IOCTL_GET_FEATURE_REQUEST`, `SCARD_CTL_CODE(3400)`: the driver's features as TLVs.
    public static let featureRequest: UInt32 = 0x4200_0000 + 3400

    init(reader: String, handle: SCARDHANDLE, context: PCSCContext) {
        self.reader = reader
        self.handle = handle
        self.context = context
    }

    deinit {
        let handle = handle
        if !isDisconnected.withLock({ $0 }) {
            context.thread.post { _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }
        }
    }

    /// Sends a control command (`SCardControl`) and returns the driver's answer.
    /// - Parameters:
    ///   - code: the control code (`SCARD_CTL_CODE(n)` is `0x42000000 + n`).
    ///   - command: the bytes sent.
    /// - Returns: the answer.
    /// - Throws: ``PCSCError`` from `SCardControl`, naming the reader.
    public func control(_ code: UInt32, _ command: [UInt8] = []) async throws -> [UInt8] {
        let handle = handle
        let reader = reader
        return try await context.thread.run {
            var answer = [UInt8](repeating: 0, count: 1024)
            var length: DWORD = 0
            let answerCount = DWORD(answer.count)
            let rv = command.withUnsafeBytes { sent in
                answer.withUnsafeMutableBytes { received in
                    SCardControl(
                        handle, DWORD(code), sent.baseAddress, DWORD(sent.count), received.baseAddress, answerCount,
                        &length)
                }
            }
            try check(rv, call: "SCardControl", reader: reader)
            return Array(answer.prefix(Int(length)))
        }
    }

    /// Disconnects, leaving the card (if any) as it is. Safe to call more than once.
    public func disconnect() async {
        let first = isDisconnected.withLock { disconnected in
            defer { disconnected = true }
            return !disconnected
        }
        guard first else { return }
        let handle = handle
        _ = try? await context.thread.run { _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }
    }
}

extension PCSCContext {
    /// Opens a reader directly (`SCARD_SHARE_DIRECT`, no protocol), whether or not a card is present, for its own
    /// commands.
    /// - Parameter reader: the reader name.
    /// - Returns: the connection.
    /// - Throws: ``PCSCError`` from `SCardConnect`, naming the reader.
    public func connectDirect(to reader: String) async throws -> DirectConnection {
        let handle = handle
        let card = try await thread.run {
            var card: SCARDHANDLE = 0
            var activeProtocol: DWORD = 0
            let rv = SCardConnect(handle, reader, DWORD(SCARD_SHARE_DIRECT), 0, &card, &activeProtocol)
            try check(rv, call: "SCardConnect", reader: reader)
            return card
        }
        return DirectConnection(reader: reader, handle: card, context: self)
    }
}
