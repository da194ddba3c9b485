/// An NDEF message: an ordered, possibly empty, list of records.
public struct NDEFMessage: Sendable, Hashable {
    /// The records in message order.
    public var records: [NDEFRecord]

    /// Creates a message from records.
    /// - Parameter records: the records, in message order.
    public init(records: [NDEFRecord]) {
        self.records = records
    }
}
