import NDEF

/// Writes the event document's JSON by hand, byte for byte as Foundation's `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` writes it (keys in code-point order, `\b \f \n \r \t \" \\` escaped, other control
/// characters as `\u00XX`, everything else as UTF-8). The encoder took about a third of a tap's time between
/// reading the tag and queueing its webhook (docs/development.md, "Tap latency"); `EventDocumentTests` compares the
/// two on a table of documents.
enum JSONText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `text` as a JSON string.
    static func append(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x5C, 0x22]
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20:
                out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends an object of the members that are present, in the order given (the caller sorts the keys).
    static func appendObject(_ members: [(key: String, value: Value?)], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in members {
            guard let value else { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            append(key, to: &out)
            out.append(UInt8(ascii: ":"))
            value.append(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A member's value.
    enum Value {
        case string(String)
        case strings([String: String])
        case records([RecordSummary])
        case object([(key: String, value: Value?)])
        case integer(Int64)
        case list([String])

        /// A string member, or none when `text` is nil (as `encodeIfPresent` leaves it out).
        static func present(_ text: String?) -> Value? { text.map { .string($0) } }

        func append(to out: inout [UInt8]) {
            switch self {
            case .string(let text):
                JSONText.append(text, to: &out)
            case .strings(let dictionary):
                // Code-point order, as `.sortedKeys` sorts.
                let sorted = dictionary.sorted {
                    $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars)
                }
                JSONText.appendObject(sorted.map { ($0.key, .string($0.value)) }, to: &out)
            case .records(let records):
                out.append(UInt8(ascii: "["))
                for (index, record) in records.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    JSONText.appendObject(record.jsonMembers, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            case .object(let members):
                JSONText.appendObject(members, to: &out)
            case .integer(let number):
                out += Array(String(number).utf8)
            case .list(let texts):
                out.append(UInt8(ascii: "["))
                for (index, text) in texts.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    JSONText.append(text, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
        }
    }
}

extension RecordSummary {
    /// The members `JSONEncoder` writes for a summary, keys sorted.
    var jsonMembers: [(key: String, value: JSONText.Value?)] {
        [
            ("action", .present(action)), ("encoding", .present(encoding)), ("id", .present(id)),
            ("lang", .present(lang)), ("package", .present(package)), ("payload", .string(payload)),
            ("records", records.map { .records($0) }), ("text", .present(text)),
            ("titles", titles.map { .strings($0) }), ("tnf", .string(tnf)), ("type", .string(type)),
            ("uri", .present(uri)),
        ]
    }
}
