internal import CPCSCLite
import Glibc

/// One entry of `SCardGetStatusChange`, in Swift.
struct ReaderState: Sendable, Hashable {
    /// The reader name, or `\\?PnP?\Notification`.
    var name: String
    /// The state the caller believes the reader is in (`dwCurrentState`).
    var currentState: UInt32
    /// The state pcscd reported (`dwEventState`).
    var eventState: UInt32 = 0
    /// The ATR of the card in the reader, if any.
    var atr: [UInt8] = []

    /// The reader name pcsc-lite uses for reader hotplug notifications.
    static let plugAndPlayName = "\\\\?PnP?\\Notification"
}

extension PCSCContext {
    /// Waits until one of `states` differs from what pcscd sees, or `timeout` passes, on the context's thread.
    ///
    /// Cancelling the task calls `SCardCancel`, which ends the wait with `SCARD_E_CANCELLED`. The thread runs
    /// nothing else meanwhile: keep card I/O on other threads (the router's card reader has one per reader).
    /// - Parameters:
    ///   - states: the readers and the states the caller believes they are in.
    ///   - timeout: milliseconds; `PCSCLibrary.infiniteTimeout` to wait for ever.
    /// - Returns: the same entries with `eventState` and `atr` filled in.
    /// - Throws: ``PCSCError`` from `SCardGetStatusChange`.
    func waitForChange(_ states: [ReaderState], timeout: UInt32) async throws -> [ReaderState] {
        let handle = handle
        return try await withTaskCancellationHandler {
            try await thread.run {
                try Self.getStatusChange(handle, states: states, timeout: timeout)
            }
        } onCancel: {
            _ = SCardCancel(handle)
        }
    }

    /// The states pcscd sees now, without waiting (`SCardGetStatusChange` with timeout 0).
    /// - Parameter states: the readers, with the states the caller believes they are in.
    /// - Returns: the same entries with `eventState` and `atr` filled in.
    /// - Throws: ``PCSCError`` from `SCardGetStatusChange`.
    func currentStates(_ states: [ReaderState]) async throws -> [ReaderState] {
        let handle = handle
        return try await thread.run {
            try Self.getStatusChange(handle, states: states, timeout: 0, acceptTimeout: true)
        }
    }

    private static func getStatusChange(
        _ handle: SCARDCONTEXT, states: [ReaderState], timeout: UInt32, acceptTimeout: Bool = false
    ) throws(PCSCError) -> [ReaderState] {
        let names = states.map { strdup($0.name) }
        defer { names.forEach { free($0) } }
        var entries = states.indices.map { index in
            var entry = SCARD_READERSTATE()
            entry.szReader = UnsafePointer(names[index])
            entry.dwCurrentState = DWORD(states[index].currentState)
            return entry
        }
        let rv = SCardGetStatusChange(handle, DWORD(timeout), &entries, DWORD(entries.count))
        if UInt32(truncatingIfNeeded: rv) == PCSCError.timeout && acceptTimeout {
            return states
        }
        try check(rv, call: "SCardGetStatusChange")
        return states.indices.map { index in
            var state = states[index]
            let entry = entries[index]
            state.eventState = UInt32(truncatingIfNeeded: entry.dwEventState)
            let count = min(Int(entry.cbAtr), Int(MAX_ATR_SIZE))
            state.atr = withUnsafeBytes(of: entry.rgbAtr) { Array($0.prefix(count)) }
            return state
        }
    }
}
