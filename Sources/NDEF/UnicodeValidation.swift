/// Allocation-free checks of encoded text inside payloads.
enum UnicodeValidation {
    /// The index of the first byte of `bytes[range]` that starts an invalid UTF-8 sequence, or `nil` if valid.
    static func firstInvalidUTF8(_ bytes: [UInt8], in range: Range<Int>) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes[range].makeIterator()
        var position = range.lowerBound
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): position += scalar.count
            case .emptyInput: return nil
            case .error: return position
            }
        }
    }

    /// Whether `bytes[range]`, read as UTF-16 code units in the given byte order, is valid UTF-16.
    /// Returns the byte index of the first invalid code unit, or `nil` if valid. `range.count` must be even.
    static func firstInvalidUTF16(_ bytes: [UInt8], in range: Range<Int>, bigEndian: Bool) -> Int? {
        var units = UTF16Units(bytes: bytes, position: range.lowerBound, end: range.upperBound, bigEndian: bigEndian)
        var parser = Unicode.UTF16.ForwardParser()
        var position = range.lowerBound
        while true {
            switch parser.parseScalar(from: &units) {
            case .valid(let scalar): position += 2 * scalar.count
            case .emptyInput: return nil
            case .error: return position
            }
        }
    }

    /// Decodes `bytes[range]` as UTF-16 in the given byte order; the range must have been validated.
    static func decodeUTF16(_ bytes: [UInt8], in range: Range<Int>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(range.count / 2)
        var iterator = UTF16Units(bytes: bytes, position: range.lowerBound, end: range.upperBound, bigEndian: bigEndian)
        while let unit = iterator.next() { units.append(unit) }
        return String(decoding: units, as: UTF16.self)
    }
}

/// UTF-16 code units read two bytes at a time from a byte array.
struct UTF16Units: IteratorProtocol {
    let bytes: [UInt8]
    var position: Int
    let end: Int
    let bigEndian: Bool

    mutating func next() -> UInt16? {
        guard end - position >= 2 else { return nil }
        let first = UInt16(bytes[position])
        let second = UInt16(bytes[position + 1])
        position += 2
        return bigEndian ? first << 8 | second : second << 8 | first
    }
}

/// Lowercase hex without separators.
enum HexText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Formats bytes as lowercase hex.
    static func string(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }
}
