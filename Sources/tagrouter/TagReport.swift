import Foundation
import NDEF
import NFCTag
import PCSC
import TagRouterCore

/// What `tagrouter read` (and `readers`) tell about one tag: the JSON document and the human lines.
struct TagReport: Encodable, Sendable {
    /// The reader the tag is on.
    var reader: String
    /// The UID as uppercase hex, `nil` when the reader gave none.
    var uid: String?
    /// The technology as named in rules.
    var tech: String
    /// The ATR as uppercase hex.
    var atr: String
    /// The NDEF records, in the shape of RULES.md.
    var records: [RecordSummary]
    /// Whether the tag holds no NDEF at all (as opposed to an empty message).
    var hasNoNDEF: Bool

    private enum CodingKeys: String, CodingKey {
        case reader, uid, tech, atr, records
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reader, forKey: .reader)
        try container.encode(uid, forKey: .uid)
        try container.encode(tech, forKey: .tech)
        try container.encode(atr, forKey: .atr)
        try container.encode(records, forKey: .records)
    }

    /// Connects to the card in `reader`, reads it and decodes its NDEF message.
    /// - Throws: ``ReadFailure`` naming the reader and what failed.
    static func read(reader: String, atr: [UInt8], context: PCSCContext) async throws -> TagReport {
        let reading: TagReading
        do {
            reading = try await CardReading.read(reader: reader, atr: atr, context: context)
        } catch let error as PCSCError {
            // Connecting failed: pcsc-lite's error names the reader already.
            throw ReadFailure("\(error)")
        } catch {
            throw ReadFailure("reader \"\(reader)\": \(describe(error))")
        }
        var records: [RecordSummary] = []
        if case .message(let bytes) = reading.content {
            do {
                records = try NDEFMessage(decoding: bytes).records.map(\.summary)
            } catch {
                throw ReadFailure("reader \"\(reader)\": the tag's NDEF message is invalid: \(error)")
            }
        }
        return TagReport(
            reader: reader, uid: reading.uid.map(hex), tech: reading.technology.rawValue, atr: hex(atr),
            records: records, hasNoNDEF: reading.content == .absent)
    }

    /// The error without a second mention of the reader when pcsc-lite's error is the cause.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? NFCTagError, var cause = error.cause as? PCSCError else { return "\(error)" }
        cause.reader = nil
        return "\(error.message) (\(cause))"
    }

    /// The JSON document, one line.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The human form: one fact per line, then one line per record.
    var lines: [String] {
        var lines = [
            "reader  \(reader)", "uid     \(uid ?? "(none)")", "tech    \(tech)", "atr     \(atr)",
        ]
        if hasNoNDEF {
            lines.append("no NDEF")
        } else if records.isEmpty {
            lines.append("empty NDEF message")
        }
        for (index, record) in records.enumerated() {
            let detail = record.uri ?? record.text ?? record.package ?? "payload \(record.payload)"
            lines.append("record \(index + 1)  \(record.tnf) \(record.type)  \(detail)")
        }
        return lines
    }
}

/// A read that failed; its description is the one sentence printed before exiting with status 1.
struct ReadFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Uppercase hex without separators, as rules and the event document write UIDs.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
}
