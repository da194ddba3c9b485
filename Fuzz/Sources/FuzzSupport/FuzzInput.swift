/// Consumes a fuzz input piece by piece: bytes, length-prefixed chunks, the rest.
public struct FuzzInput {
    /// The bytes not yet consumed.
    public private(set) var remaining: ArraySlice<UInt8>

    /// Wraps the bytes libFuzzer passed in.
    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        remaining = ArraySlice(UnsafeBufferPointer(start: data, count: size))
    }

    /// Wraps bytes.
    public init(_ bytes: [UInt8]) {
        remaining = bytes[...]
    }

    /// Whether everything has been consumed.
    public var isEmpty: Bool { remaining.isEmpty }

    /// The next byte, or nil at the end.
    public mutating func byte() -> UInt8? {
        remaining.popFirst()
    }

    /// A chunk whose length is the next byte (shorter at the end), or nil at the end.
    public mutating func chunk() -> [UInt8]? {
        guard let length = byte() else { return nil }
        let bytes = Array(remaining.prefix(Int(length)))
        remaining = remaining.dropFirst(Int(length))
        return bytes
    }

    /// A chunk up to the next `separator` byte (excluded) or the end.
    public mutating func field(separatedBy separator: UInt8) -> [UInt8] {
        let end = remaining.firstIndex(of: separator) ?? remaining.endIndex
        let bytes = Array(remaining[remaining.startIndex..<end])
        remaining = remaining[end...].dropFirst()
        return bytes
    }

    /// Everything that is left.
    public mutating func rest() -> [UInt8] {
        defer { remaining = [] }
        return Array(remaining)
    }
}
