public import StateStore

/// Where taps are recorded for `tagrouter history`: the state database (`StateStore`'s `StateDatabase`), an
/// array in tests.
public protocol TapHistory: Sendable {
    /// Records one tap.
    /// - Parameter tap: the tap.
    /// - Throws: when the record cannot be written.
    func recordTap(_ tap: TapRecord) throws
}

extension StateDatabase: TapHistory {}

/// Where the highest accepted SUN read counter of each UID is kept, so that a copied URL is refused as a replay
/// (docs/doors.md, "SUN: tags that prove themselves"): the state database.
public protocol SUNCounterStore: Sendable {
    /// Accepts a counter above the highest one accepted for the key set and UID, and records it.
    /// - Parameters:
    ///   - keySetID: the key set that verified the message.
    ///   - uid: the UID the message names.
    ///   - counter: its read counter.
    /// - Returns: `true` for a new counter, `false` for a replay.
    /// - Throws: when the store cannot be read or written.
    func acceptSUNCounter(keySetID: String, uid: String, counter: UInt32) throws -> Bool
}

extension StateDatabase: SUNCounterStore {}
