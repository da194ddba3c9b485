public import StateStore

/// Where taps are recorded for `tagrouter history`: the state database's ``Outbox``, an array in tests.
public protocol TapHistory: Sendable {
    /// Records one tap.
    /// - Parameter tap: the tap.
    /// - Throws: when the record cannot be written.
    func recordTap(_ tap: TapRecord) throws
}

extension StateDatabase: TapHistory {}
