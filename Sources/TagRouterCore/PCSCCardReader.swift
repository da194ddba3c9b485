public import Logging
public import NFCTag
public import PCSC
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

    /// Reads the card on `reader`, and keeps the card's connection open, read or not, until ``endTap(reader:connection:)``:
    /// the reader's LED and buzzer commands go over it (docs/tags.md, "Reader feedback"). The router ends every
    /// tap on the reader's thread right after its dispatch has started, so the card is released before the
    /// thread's next job, as ``CardReading/read(reader:atr:context:)`` does.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - atr: the ATR the watcher reported.
    /// - Returns: what the tag holds.
    /// - Throws: `PCSCError` or `NFCTagError`, as ``CardReading/read(reader:atr:context:)``.
    public func read(reader: String, atr: [UInt8]) async throws -> TagReading {
        let slot = self.slot(for: reader)
        let context = try await slot.current(logger: logger)
        slot.endTap()
        do {
            return try await context.withThread {
                let connection = try await context.connect(to: reader)
                slot.hold(connection)
                return try await TagReader().read(atr: atr, channel: connection)
            }
        } catch let error as PCSCError where error.isServiceLost {
            await slot.drop(context)
            throw error
        }
    }

    /// The open connection of the tap that has just read on `reader`, if it has one.
    /// - Parameter reader: the reader name.
    /// - Returns: the connection, or `nil`.
    public func tapConnection(reader: String) -> (any CardChannel)? {
        slots.withLock { $0[reader] }?.heldConnection
    }

    /// Releases a tap's connection once the reader's thread has finished its current job (leaving the card
    /// powered).
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - connection: the tap's connection.
    public func endTap(reader: String, connection: (any CardChannel)?) {
        guard let connection = connection as? CardConnection else { return }
        slots.withLock { $0[reader] }?.release(connection)
        connection.disconnectAfterCurrentJob()
    }

    /// Opens the reader directly (`SCARD_SHARE_DIRECT`) on its thread, with its context.
    /// - Parameter reader: the reader name.
    /// - Returns: the connection.
    /// - Throws: `PCSCError` when the context or the connection fails.
    public func openDirect(reader: String) async throws -> (any ReaderControl)? {
        let slot = self.slot(for: reader)
        let context = try await slot.current(logger: logger)
        return try await context.withThread { try await context.connectDirect(to: reader) }
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
    /// The connection of the tap in progress, from its connect to ``endTap()``.
    private let connection = Mutex<CardConnection?>(nil)

    var heldConnection: CardConnection? { connection.withLock { $0 } }

    func hold(_ held: CardConnection) {
        connection.withLock { $0 = held }
    }

    /// Forgets `released` if it is still the one held.
    func release(_ released: CardConnection) {
        connection.withLock { held in
            if held === released { held = nil }
        }
    }

    func endTap() {
        connection.withLock { held in
            defer { held = nil }
            return held
        }?.disconnectAfterCurrentJob()
    }

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
        endTap()
        if let old = context.withLock({ value -> PCSCContext? in
            defer { value = nil }
            return value
        }) {
            await old.release()
        }
    }
}

extension DirectConnection: ReaderControl {
    /// Disconnects.
    public func close() async {
        await disconnect()
    }
}
