internal import CPCSCLite
public import Logging
import Synchronization

/// A pcsc-lite context: the link to pcscd through which readers are listed, watched and connected to.
///
/// Every blocking call runs on the context's own thread, never on Swift's cooperative pool. A context dies
/// with the pcscd it was established with; establish a new one after ``PCSCError/isServiceLost``.
/// libpcsclite reaches pcscd at `PCSCLITE_CSOCK_NAME` when that is set in the environment (read once, by the
/// process's first context), else at its built-in `/run/pcscd/pcscd.comm`.
public final class PCSCContext: Sendable {
    let handle: SCARDCONTEXT
    let thread: BlockingThread
    let logger: Logger
    private let isReleased = Mutex(false)

    private init(handle: SCARDCONTEXT, thread: BlockingThread, logger: Logger) {
        self.handle = handle
        self.thread = thread
        self.logger = logger
    }

    deinit {
        let handle = handle
        if !isReleased.withLock({ $0 }) {
            thread.post { _ = SCardReleaseContext(handle) }
        }
    }

    /// Establishes a context with pcscd.
    /// - Parameters:
    ///   - logger: where the context logs.
    ///   - thread: the thread its calls run on; a new one of its own by default.
    /// - Returns: the context.
    /// - Throws: ``PCSCError`` from `SCardEstablishContext`, such as `SCARD_E_NO_SERVICE` when pcscd is not running.
    public static func establish(logger: Logger, thread: BlockingThread? = nil) async throws -> PCSCContext {
        let thread = thread ?? BlockingThread(name: "pcsc-context")
        let handle = try await thread.run {
            var handle: SCARDCONTEXT = 0
            let rv = SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &handle)
            try check(rv, call: "SCardEstablishContext")
            return handle
        }
        logger.debug("pcsc.context.established")
        return PCSCContext(handle: handle, thread: thread, logger: logger)
    }

    /// Lists the readers pcscd knows, in pcscd's order.
    /// - Returns: the reader names; empty when there is none.
    /// - Throws: ``PCSCError`` from `SCardListReaders`.
    public func readers() async throws -> [String] {
        let handle = handle
        return try await thread.run {
            var length: DWORD = 0
            var rv = SCardListReaders(handle, nil, nil, &length)
            if UInt32(truncatingIfNeeded: rv) == PCSCError.noReadersAvailable { return [] }
            try check(rv, call: "SCardListReaders")
            var buffer = [CChar](repeating: 0, count: Int(length))
            rv = SCardListReaders(handle, nil, &buffer, &length)
            if UInt32(truncatingIfNeeded: rv) == PCSCError.noReadersAvailable { return [] }
            try check(rv, call: "SCardListReaders")
            return Self.splitMultiString(buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) })
        }
    }

    /// The state of each named reader right now, without waiting.
    /// - Parameter readers: reader names, as from ``readers()``.
    /// - Returns: one status per reader, in the same order.
    /// - Throws: ``PCSCError`` from `SCardGetStatusChange`.
    public func status(of readers: [String]) async throws -> [ReaderStatus] {
        guard !readers.isEmpty else { return [] }
        let states = readers.map { ReaderState(name: $0, currentState: 0) }
        let result = try await currentStates(states)
        return result.map(ReaderStatus.init(state:))
    }

    /// Connects to the card in a reader, shared, T=0 or T=1.
    /// - Parameter reader: the reader name.
    /// - Returns: the connection; disconnect it when done (it leaves the card powered).
    /// - Throws: ``PCSCError`` from `SCardConnect` (`SCARD_E_NO_SMARTCARD`, `SCARD_W_REMOVED_CARD`, …).
    public func connect(to reader: String) async throws -> CardConnection {
        let handle = handle
        let (card, activeProtocol, duration) = try await thread.run {
            var card: SCARDHANDLE = 0
            var activeProtocol: DWORD = 0
            let start = ContinuousClock.now
            let rv = SCardConnect(
                handle, reader, DWORD(SCARD_SHARE_SHARED), DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card,
                &activeProtocol)
            let duration = ContinuousClock.now - start
            try check(rv, call: "SCardConnect", reader: reader)
            return (card, activeProtocol, duration)
        }
        return CardConnection(
            reader: reader, handle: card, activeProtocol: activeProtocol, context: self, connectDuration: duration)
    }

    /// Runs `body` on the context's own thread: card exchanges it makes through this context's connections then
    /// call pcsc-lite directly, with no thread hop per command. Wrap a whole tag read in it.
    ///
    /// Blocking calls inside still never reach the cooperative pool; calls to this context from other tasks
    /// wait until `body` suspends or ends.
    /// - Parameter body: the work, typically connect, read, disconnect.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` threw.
    public func withThread<T>(_ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(thread) {
            try await body()
        }
    }

    /// Ends a blocking wait of this context (`SCardCancel`); the waiting call reports `SCARD_E_CANCELLED`.
    public func cancel() {
        _ = SCardCancel(handle)
    }

    /// Releases the context, after the jobs already queued on its thread (a card's disconnect among them). Further
    /// calls fail with `SCARD_E_INVALID_HANDLE`.
    public func release() async {
        let wasReleased = isReleased.withLock { released in
            defer { released = true }
            return released
        }
        guard !wasReleased else { return }
        cancel()
        let handle = handle
        _ = try? await thread.runAfterQueuedJobs { _ = SCardReleaseContext(handle) }
        logger.debug("pcsc.context.released")
    }

    /// Splits a pcsc-lite multi-string (names separated by NUL, ended by two NULs).
    static func splitMultiString(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Throws a ``PCSCError`` unless `rv` is `SCARD_S_SUCCESS`.
func check(_ rv: LONG, call: String, reader: String? = nil) throws(PCSCError) {
    if rv != 0 {
        throw PCSCError(call: call, reader: reader, code: UInt32(truncatingIfNeeded: rv))
    }
}
