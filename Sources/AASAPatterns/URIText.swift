/// Percent-encoding helpers over UTF-8 bytes.
public enum URIText {
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Percent-encodes non-ASCII bytes as `%XX` and upper-cases the hex digits of existing escapes
    /// (RFC 3986, 6.2.2.1), so that the same URI always reads the same.
    static func normalizedEncoding(_ text: String.UTF8View) -> [UInt8] {
        if let bytes = text.withContiguousStorageIfAvailable({ normalizedEncoding($0) }) { return bytes }
        return normalizedEncoding(Array(text))
    }

    /// The normalized bytes, or nil when `bytes` are already normalized (plain ASCII, no escapes).
    static func normalizedIfNeeded(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        if !bytes.contains(where: { $0 >= 0x80 || $0 == UInt8(ascii: "%") }) { return nil }
        return normalizedEncoding(bytes)
    }

    /// The same normalization over bytes.
    static func normalizedEncoding(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { normalizedEncoding($0) }
    }

    private static func normalizedEncoding(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        // The common case, plain ASCII without escapes, is one copy.
        if !bytes.contains(where: { $0 >= 0x80 || $0 == UInt8(ascii: "%") }) { return Array(bytes) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 2)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte >= 0x80 {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            } else if byte == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hexValue(bytes[i + 1]),
                let low = hexValue(bytes[i + 2])
            {
                out.append(byte)
                out.append(hexDigits[Int(high)])
                out.append(hexDigits[Int(low)])
                i += 3
                continue
            } else {
                out.append(byte)
            }
            i += 1
        }
        return out
    }

    /// Decodes `%XX` escapes; a `%` not followed by two hex digits stays as it is.
    public static func percentDecoded<C: Collection<UInt8>>(_ bytes: C) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex, let high = hexValue(bytes[first]) {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let low = hexValue(bytes[second]) {
                        out.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
            }
            out.append(byte)
            index = bytes.index(after: index)
        }
        return out
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters (for placeholder values inside URLs).
    public static func percentEncodedComponent(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// ASCII bytes lower-cased into a string (bytes of 0x80 and above are kept as they are).
    public static func asciiLowercased<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() {
                buffer[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    public static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    public static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// RFC 3986 `pchar` minus `%` (checked separately): unreserved, sub-delims, `:` and `@`.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        pathCharacters[Int(byte)]
    }

    /// A lookup table for ``isPathCharacter(_:)``: URIs are checked byte by byte on every match.
    private static let pathCharacters: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        return isUnreserved(byte) || "!$&'()*+,;=:@".utf8.contains(byte)
    }
}
