import Foundation
import JSONOutput
import NDEF
import NFCTag

/// What `tagrouter decode` prints, as functions tests can call.
public enum DecodeOutput {
    /// Where the message bytes come from.
    public enum Input: Equatable, Sendable {
        /// Hex text (argument or standard input).
        case hex(String)
        /// Raw bytes (a file).
        case bytes([UInt8])
    }

    /// A sentence for standard error.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// The sentence.
        public var description: String
    }

    /// `tagrouter decode`: the message from hex text, a file, or hex on standard input.
    /// - Parameters:
    ///   - hex: the message as hex, if given as an argument.
    ///   - file: a file holding the raw message, if given.
    ///   - json: print `{"records": [...]}` instead of the tree.
    ///   - tlv: the input is a Type 2 data area.
    /// - Returns: the records; status 1 with the reason (and its byte offset) when the input is not a message.
    public static func output(hex: String?, file: String?, json: Bool, tlv: Bool) -> CommandOutput {
        let input: Input
        if let file {
            do {
                input = .bytes(try MessageFile.bytes(at: file, limit: nil))
            } catch {
                return .failure("\(error)")
            }
        } else if let hex {
            input = .hex(hex)
        } else {
            input = .hex(String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))
        }
        switch render(input, json: json, tlv: tlv) {
        case .success(let text): return .lines([text])
        case .failure(let failure): return .failure(failure.description)
        }
    }

    /// How many payload bytes the tree shows before eliding the rest.
    static let payloadPreview = 32

    /// Decodes the input and renders it.
    /// - Parameters:
    ///   - input: hex text or bytes.
    ///   - json: `true` for `{"records": [...]}`, `false` for the human tree.
    ///   - tlv: `true` when the input is a Type 2 data area (tag byte 16 on): walk its TLVs to the NDEF TLV first.
    /// - Returns: the text for standard output, or the error sentence for standard error.
    public static func render(_ input: Input, json: Bool, tlv: Bool = false) -> Result<String, Failure> {
        var bytes: [UInt8]
        switch input {
        case .bytes(let raw): bytes = raw
        case .hex(let text):
            do {
                bytes = try HexInput.bytes(text)
            } catch {
                return .failure(Failure(description: error.description))
            }
        }
        if tlv {
            do {
                switch try Type2TLV.ndefMessage(inDataArea: bytes) {
                case .message(let ndef): bytes = ndef
                case .empty: bytes = []
                case .absent:
                    return .failure(
                        Failure(description: "no NDEF TLV in the Type 2 data area: the tag holds no NDEF message"))
                }
            } catch {
                return .failure(Failure(description: String(describing: error)))
            }
        }
        let message: NDEFMessage
        do {
            message = try NDEFMessage(decoding: bytes)
        } catch {
            return .failure(Failure(description: error.description))
        }
        return .success(json ? self.json(message) : tree(message, byteCount: bytes.count))
    }

    /// `{"records": [...]}`, keys sorted, slashes unescaped.
    static func json(_ message: NDEFMessage) -> String {
        struct Document: Encodable { var records: [RecordSummary] }
        return JSONOutput.line(Document(records: message.records.map(\.summary)))
    }

    /// The human-readable tree: a header line, then one block per record, Smart Poster contents indented.
    static func tree(_ message: NDEFMessage, byteCount: Int) -> String {
        guard !message.records.isEmpty else { return "empty NDEF message (no records)" }
        let count = message.records.count
        var lines = ["NDEF message: \(count) record\(count == 1 ? "" : "s"), \(byteCount) bytes"]
        if let uri = message.tagURI { lines.append("tag URI: \(printable(uri))") }
        for (index, record) in message.records.enumerated() {
            lines += block(record.summary, index: index, indent: "")
        }
        return lines.joined(separator: "\n")
    }

    private static func block(_ summary: RecordSummary, index: Int, indent: String) -> [String] {
        let type = summary.type.isEmpty ? "" : " \(printable(summary.type))"
        var lines = ["\(indent)record \(index): \(summary.tnf)\(type)"]
        let inner = indent + "  "
        if let id = summary.id { lines.append("\(inner)id: \(id)") }
        if let uri = summary.uri { lines.append("\(inner)uri: \(printable(uri))") }
        if let text = summary.text {
            lines.append(
                "\(inner)text (\(printable(summary.lang ?? "")), \(summary.encoding ?? "")): \(printable(text))")
        }
        for (language, title) in (summary.titles ?? [:]).sorted(by: { $0.key < $1.key }) {
            lines.append("\(inner)title (\(printable(language))): \(printable(title))")
        }
        if let action = summary.action { lines.append("\(inner)action: \(action)") }
        if let package = summary.package { lines.append("\(inner)package: \(printable(package))") }
        let bytes = summary.payload.count / 2
        if let records = summary.records {
            lines.append("\(inner)records (\(bytes) bytes):")
            for (nestedIndex, nested) in records.enumerated() {
                lines += block(nested, index: nestedIndex, indent: inner + "  ")
            }
        } else if bytes > 0 {
            let shown = summary.payload.prefix(2 * payloadPreview)
            let more = bytes > payloadPreview ? "…" : ""
            lines.append("\(inner)payload (\(bytes) byte\(bytes == 1 ? "" : "s")): \(shown)\(more)")
        }
        return lines
    }

    /// Text from a tag with control characters escaped, so a tag cannot drive the terminal.
    static func printable(_ text: String) -> String {
        PrintableText.line(text)
    }
}
