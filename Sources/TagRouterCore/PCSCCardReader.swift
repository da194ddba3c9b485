public import Logging
public import NFCTag
public import PCSC
import Synchronization

/// Reads taps through pcscd: the pcsc-lite context is established on first use and dropped when pcscd goes
/// away, so the next tap establishes a fresh one. Every context runs on one thread, kept for the reader's
/// lifetime: the ``executor`` the router handles reader events on.
public final class PCSCCardReader: CardReader {
    let logger: Logger
    private let context = Mutex<PCSCContext?>(nil)
    /// The thread of the contexts; the router's ``PCSC/ReaderWatcher`` waits on it too.
    public let thread = BlockingThread(name: "pcsc-cards")

    /// The thread of the contexts.
    public var executor: (any TaskExecutor)? { thread }

    /// Creates an empty holder; nothing is established until the first read.
    /// - Parameter logger: passed to the context.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Reads the card on `reader`.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - atr: the ATR the watcher reported.
    /// - Returns: what the tag holds.
    /// - Throws: `PCSCError` or `NFCTagError`, as ``CardReading/read(reader:atr:context:)``.
    public func read(reader: String, atr: [UInt8]) async throws -> TagReading {
        let context = try await current()
        do {
            return try await CardReading.read(reader: reader, atr: atr, context: context)
        } catch let error as PCSCError where error.isServiceLost {
            await drop(context)
            throw error
        }
    }

    /// Forgets the context (pcscd was lost, or the router stops): the next read establishes a new one.
    public func reset() async {
        if let old = context.withLock({ value -> PCSCContext? in
            defer { value = nil }
            return value
        }) {
            await old.release()
        }
    }

    private func current() async throws -> PCSCContext {
        if let existing = context.withLock({ $0 }) { return existing }
        let fresh = try await PCSCContext.establish(logger: logger, thread: thread)
        let (kept, spare) = context.withLock { value -> (PCSCContext, PCSCContext?) in
            if let value { return (value, fresh) }
            value = fresh
            return (fresh, nil)
        }
        if let spare { await spare.release() }
        return kept
    }

    private func drop(_ stale: PCSCContext) async {
        let isCurrent = context.withLock { value -> Bool in
            guard let current = value, current === stale else { return false }
            value = nil
            return true
        }
        if isCurrent { await stale.release() }
    }
}
