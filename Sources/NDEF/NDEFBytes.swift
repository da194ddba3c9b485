/// The bytes of a record's type, ID or payload, indexed from 0 like an array.
///
/// A record decoded from an `Array` or `ArraySlice` shares the message's storage instead of copying its bytes
/// (a chunked record's payload, reassembled, has its own). So a record keeps the whole message alive for as long
/// as it lives; `Array(record.payload)` detaches a copy. Equality and hashing are by content: two views of
/// equal bytes are equal wherever they are stored.
///
/// Indices run from 0 to `count` whatever the storage, so `payload[0]` is always the first byte (unlike an
/// `ArraySlice` of the message). Slicing gives a `Slice`, which keeps the indices of the bytes it was cut from,
/// as every collection's slices do.
public struct NDEFBytes: RandomAccessCollection, Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The bytes; its indices are the storage's, not this view's.
    var storage: ArraySlice<UInt8>

    /// No bytes.
    public init() {
        storage = []
    }

    /// The bytes of an array, sharing its storage.
    /// - Parameter bytes: the bytes.
    public init(_ bytes: [UInt8]) {
        storage = bytes[...]
    }

    /// A copy of the bytes of a sequence.
    /// - Parameter bytes: the bytes.
    public init(_ bytes: some Sequence<UInt8>) {
        storage = ArraySlice(bytes)
    }

    /// The bytes of a slice, sharing its storage.
    init(sharing storage: ArraySlice<UInt8>) {
        self.storage = storage
    }

    /// Creates the bytes from a literal.
    /// - Parameter elements: the bytes.
    public init(arrayLiteral elements: UInt8...) {
        storage = elements[...]
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// The number of bytes.
    public var endIndex: Int { storage.count }

    /// The number of bytes.
    public var count: Int { storage.count }

    /// Whether there are no bytes.
    public var isEmpty: Bool { storage.isEmpty }

    /// The byte at `position`, counted from 0.
    /// - Parameter position: an index from 0 to `count - 1`; any other traps.
    public subscript(position: Int) -> UInt8 {
        storage[storage.startIndex + position]
    }

    /// Calls `body` with a pointer to the bytes, valid only during the call.
    /// - Parameter body: what to do with the bytes.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeBufferPointer(body)
    }

    /// Calls `body` with a pointer to the bytes, which are always contiguous.
    /// - Parameter body: what to do with the bytes.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func withContiguousStorageIfAvailable<Result>(
        _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result? {
        try storage.withUnsafeBufferPointer(body)
    }

    /// Whether two views hold the same bytes, wherever they are stored.
    /// - Parameters:
    ///   - lhs: some bytes.
    ///   - rhs: other bytes.
    /// - Returns: `true` for the same count and bytes.
    public static func == (lhs: NDEFBytes, rhs: NDEFBytes) -> Bool {
        lhs.storage == rhs.storage
    }

    /// Whether the view holds the bytes of an array.
    /// - Parameters:
    ///   - lhs: some bytes.
    ///   - rhs: an array.
    /// - Returns: `true` for the same count and bytes.
    public static func == (lhs: NDEFBytes, rhs: [UInt8]) -> Bool {
        lhs.storage == rhs[...]
    }

    /// Whether an array holds the bytes of the view.
    /// - Parameters:
    ///   - lhs: an array.
    ///   - rhs: some bytes.
    /// - Returns: `true` for the same count and bytes.
    public static func == (lhs: [UInt8], rhs: NDEFBytes) -> Bool {
        lhs[...] == rhs.storage
    }

    /// Whether the view holds the bytes of `pattern`, for `switch record.type { case RecordType.uri: … }`.
    static func ~= (pattern: [UInt8], value: NDEFBytes) -> Bool {
        value == pattern
    }

    /// Hashes the count and the bytes.
    /// - Parameter hasher: the hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.count)
        storage.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

extension NDEFBytes: CustomStringConvertible, CustomDebugStringConvertible {
    /// The bytes as an array prints them: `[85, 1]`.
    public var description: String {
        Array(storage).description
    }

    /// The same as ``description``.
    public var debugDescription: String {
        description
    }
}
