public import Logging
public import NFCTag
import PCSC
import Synchronization

/// Reads taps through pcscd, each reader on a thread of its own with a pcsc-lite context of its own, so that taps
/// on different readers are read at the same time: pcscd takes one blocking call per reader at once, and
/// libpcsclite runs the calls of one context one after another.
///
/// A reader's thread is made for its first tap and kept until the reader goes away (``readerRemoved(_:)``); its
/// context is established on first use and dropped when pcscd goes away, so the next tap establishes a fresh one.
public final class PCSCCardReader: CardReader {
    let logger: Logger
    private let slots = Mutex<[String: ReaderSlot]>([:])

    /// Creates an empty holder; nothing is established until the first read.
    /// - Parameter logger: passed to the contexts.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// The thread of `reader`'s context, made now if the reader has none yet: a tap there runs on it from its
    /// first command to its dispatch.
    /// - Parameter reader: the reader name.
    /// - Returns: the reader's thread.
    public func executor(for reader: String) -> (any TaskExecutor)? {
        slot(for: reader).thread
    }

    /// Reads the card on `reader`.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - atr: the ATR the watcher reported.
    /// - Returns: what the tag holds.
    /// - Throws: `PCSCError` or `NFCTagError`, as ``CardReading/read(reader:atr:context:)``.
    public func read(reader: String, atr: [UInt8]) async throws -> TagReading {
        let slot = self.slot(for: reader)
        let context = try await slot.current(logger: logger)
        do {
            return try await CardReading.read(reader: reader, atr: atr, context: context)
        } catch let error as PCSCError where error.isServiceLost {
            await slot.drop(context)
            throw error
        }
    }

    /// Forgets the reader's thread and context; a tap still reading there keeps them until it ends, and the
    /// context is released after it.
    /// - Parameter reader: the reader name.
    public func readerRemoved(_ reader: String) {
        _ = slots.withLock { $0.removeValue(forKey: reader) }
    }

    /// Forgets every context and thread (pcscd was lost, or the router stops): the next read establishes a new one.
    public func reset() async {
        let all = slots.withLock { slots in
            defer { slots = [:] }
            return Array(slots.values)
        }
        for slot in all {
            await slot.reset()
        }
    }

    private func slot(for reader: String) -> ReaderSlot {
        slots.withLock { slots in
            if let known = slots[reader] { return known }
            let slot = ReaderSlot()
            slots[reader] = slot
            return slot
        }
    }
}

/// One reader's thread, and the context established on it.
private final class ReaderSlot: Sendable {
    let thread = BlockingThread(name: "pcsc-reader")
    private let context = Mutex<PCSCContext?>(nil)

    func current(logger: Logger) async throws -> PCSCContext {
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

    func drop(_ stale: PCSCContext) async {
        let isCurrent = context.withLock { value -> Bool in
            guard let current = value, current === stale else { return false }
            value = nil
            return true
        }
        if isCurrent { await stale.release() }
    }

    func reset() async {
        if let old = context.withLock({ value -> PCSCContext? in
            defer { value = nil }
            return value
        }) {
            await old.release()
        }
    }
}
