/// Allocation-free checks of encoded text inside payloads.
enum UnicodeValidation {
    /// The index of the first byte that starts an invalid UTF-8 sequence at or after `start`, or `nil` if valid.
    static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        // ASCII needs no decoding: skip it, and hand the rest to the stdlib's parser.
        var position = start
        while position < bytes.count && bytes[position] < 0x80 { position += 1 }
        guard position < bytes.count else { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes[position...].makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): position += scalar.count
            case .emptyInput: return nil
            case .error: return position
            }
        }
    }

    /// The byte index of the first invalid UTF-16 code unit at or after `start`, or `nil` if valid. The byte count
    /// from `start` must be even.
    static func firstInvalidUTF16(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, bigEndian: Bool) -> Int? {
        var units = UTF16Units(bytes: bytes, position: start, bigEndian: bigEndian)
        var parser = Unicode.UTF16.ForwardParser()
        var position = start
        while true {
            switch parser.parseScalar(from: &units) {
            case .valid(let scalar): position += 2 * scalar.count
            case .emptyInput: return nil
            case .error: return position
            }
        }
    }

    /// Decodes validated UTF-16 bytes from `start` in the given byte order.
    static func decodeUTF16(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity((bytes.count - start) / 2)
        var iterator = UTF16Units(bytes: bytes, position: start, bigEndian: bigEndian)
        while let unit = iterator.next() { units.append(unit) }
        return String(decoding: units, as: UTF16.self)
    }
}

/// UTF-16 code units read two bytes at a time.
struct UTF16Units: IteratorProtocol {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    let bigEndian: Bool

    mutating func next() -> UInt16? {
        guard bytes.count - position >= 2 else { return nil }
        let first = UInt16(bytes[position])
        let second = UInt16(bytes[position + 1])
        position += 2
        return bigEndian ? first << 8 | second : second << 8 | first
    }
}
