import Foundation
public import NDEF
import NFCTag
import PCSC
import TagRouterCore

/// What `tagrouter read` (and `readers`) tell about one tag: the JSON document and the human lines.
public struct TagReport: Encodable, Sendable {
    /// The reader the tag is on.
    public var reader: String
    /// The UID as uppercase hex, `nil` when the reader gave none.
    public var uid: String?
    /// The technology as named in rules.
    public var tech: String
    /// The ATR as uppercase hex.
    public var atr: String
    /// The NDEF records, in the shape of the event document (docs/rules.md, "The event document").
    public var records: [RecordSummary]
    /// Whether the tag holds no NDEF at all (as opposed to an empty message).
    public var hasNoNDEF: Bool

    private enum CodingKeys: String, CodingKey {
        case reader, uid, tech, atr, records
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reader, forKey: .reader)
        try container.encode(uid, forKey: .uid)
        try container.encode(tech, forKey: .tech)
        try container.encode(atr, forKey: .atr)
        try container.encode(records, forKey: .records)
    }

    /// Connects to the card in `reader`, reads it and decodes its NDEF message.
    /// - Throws: ``CommandFailure`` naming the reader and what failed.
    static func read(reader: String, atr: [UInt8], context: PCSCContext) async throws -> TagReport {
        let reading: TagReading
        do {
            reading = try await CardReading.read(reader: reader, atr: atr, context: context)
        } catch let error as PCSCError {
            // Connecting failed: pcsc-lite's error names the reader already.
            throw CommandFailure("\(error)")
        } catch {
            throw CommandFailure("reader \"\(reader)\": \(describe(error))")
        }
        var records: [RecordSummary] = []
        if case .message(let bytes) = reading.content {
            do {
                records = try NDEFMessage(decoding: bytes).records.map(\.summary)
            } catch {
                throw CommandFailure("reader \"\(reader)\": the tag's NDEF message is invalid: \(error)")
            }
        }
        return TagReport(
            reader: reader, uid: reading.uid.map(UID.hex), tech: reading.technology.rawValue,
            atr: HexText.string(atr, uppercase: true),
            records: records, hasNoNDEF: reading.content == .absent)
    }

    /// The error without a second mention of the reader when pcsc-lite's error is the cause.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? NFCTagError, var cause = error.cause as? PCSCError else { return "\(error)" }
        cause.reader = nil
        return "\(error.message) (\(cause))"
    }

    /// The human form: one fact per line, then one line per record.
    public var lines: [String] {
        var lines = [
            "reader  \(reader)", "uid     \(uid ?? "(none)")", "tech    \(tech)", "atr     \(atr)",
        ]
        if hasNoNDEF {
            lines.append("no NDEF")
        } else if records.isEmpty {
            lines.append("empty NDEF message")
        }
        for (index, record) in records.enumerated() {
            // Text from a stranger's tag: control characters escaped so it cannot drive the terminal.
            let detail = DecodeOutput.printable(
                record.uri ?? record.text ?? record.package ?? "payload \(record.payload)")
            lines.append("record \(index + 1)  \(record.tnf) \(DecodeOutput.printable(record.type))  \(detail)")
        }
        return lines
    }
}
