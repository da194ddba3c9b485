import Foundation
import JSONOutput
import NDEF
import NFCTag
import PCSC
import TagRouterCore

/// `tagrouter write` (docs/cli.md): one NDEF message written safely to the tag on a reader, read back and
/// compared; optionally the tag made permanently read-only.
public enum TagWriting {
    /// What to write.
    public enum Content: Sendable, Equatable {
        /// One URI record.
        case uri(String)
        /// One Text record in a language (IANA code such as `en`).
        case text(String, language: String)
        /// A raw NDEF message as hex.
        case hex(String)
        /// A file holding the raw NDEF message.
        case file(String)
        /// A Home Assistant tag URI `https://www.home-assistant.io/tag/<id>`; a new random ID (a UUID4, as
        /// Home Assistant makes them) when `nil`.
        case homeAssistant(id: String?)
    }

    /// The exit statuses of `tagrouter write` (docs/cli.md).
    public enum Status {
        /// Written, read back and verified (and locked, with `--lock`).
        public static let written: Int32 = 0
        /// Could not write: no reader or tag, pcscd unreachable, the tag left mid-write (it then holds its old
        /// message, an empty one or the new one), a command failed, unreadable input.
        public static let failed: Int32 = 1
        /// Refused with the tag untouched: read-only, message too large, a kind that cannot be written, a tag
        /// that is not NDEF formatted or whose layout is broken, a lock that cannot be done or was not confirmed.
        public static let refused: Int32 = 2
        /// The tag was written but reads back something else (or another UID).
        public static let notVerified: Int32 = 3
    }

    /// The Home Assistant tag URI prefix.
    public static let homeAssistantPrefix = "https://www.home-assistant.io/tag/"

    /// Checks what the options give before anything runs.
    /// - Parameter content: the content option.
    /// - Throws: ``CommandFailure`` naming the option at fault.
    public static func validate(_ content: Content) throws(CommandFailure) {
        switch content {
        case .uri(let uri):
            guard !uri.isEmpty else { throw CommandFailure("--uri is empty") }
        case .text(let text, let language):
            do {
                _ = try TextRecord(text: text, language: language)
            } catch {
                throw CommandFailure("--text / --lang: \(error)")
            }
        case .hex(let text):
            do {
                let bytes = try HexInput.bytes(text)
                if !bytes.isEmpty { _ = try NDEFMessage(decoding: bytes) }
            } catch {
                throw CommandFailure("--ndef \(text): \(error)")
            }
        case .file:
            break
        case .homeAssistant(let id):
            if let id { try validateHomeAssistantID(id) }
        }
    }

    /// The NDEF message bytes for a content option.
    /// - Parameter content: what to write.
    /// - Returns: the message bytes.
    /// - Throws: ``CommandFailure`` for a file that cannot be read, is larger than any tag or is not an NDEF
    ///   message; `NDEFError` for a URI or text that cannot be encoded.
    public static func message(_ content: Content) throws -> [UInt8] {
        switch content {
        case .uri(let uri):
            return try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
        case .text(let text, let language):
            return try NDEFMessage(records: [TextRecord(text: text, language: language).record]).encoded()
        case .hex(let text):
            return try HexInput.bytes(text)
        case .file(let path):
            let bytes = try MessageFile.bytes(at: path)
            if !bytes.isEmpty {
                do {
                    _ = try NDEFMessage(decoding: bytes)
                } catch {
                    throw CommandFailure("--file \(path) is not an NDEF message: \(error)")
                }
            }
            return bytes
        case .homeAssistant(let id):
            let tagID = id ?? UUID().uuidString.lowercased()
            return try NDEFMessage(records: [URIRecord(uri: homeAssistantPrefix + tagID).record]).encoded()
        }
    }

    /// A Home Assistant tag ID must stay one URI path segment: letters, digits, `-`, `_`, `.` and `~`.
    private static func validateHomeAssistantID(_ id: String) throws(CommandFailure) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~")
        guard !id.isEmpty, id.count <= 128, id.allSatisfy(allowed.contains) else {
            throw CommandFailure(
                "--ha-tag \(PrintableText.line(id)): a tag ID is 1 to 128 letters, digits, '-', '_', '.' or '~'")
        }
    }

    /// `tagrouter write`: writes the message to the tag on the first matching reader, or the next one presented.
    /// - Parameters:
    ///   - content: what to write.
    ///   - readers: `--reader`.
    ///   - wait: wait for a tag instead of failing when none is there.
    ///   - lock: make the tag permanently read-only after writing.
    ///   - confirmed: `--yes`: no confirmation asked for `lock`.
    ///   - json: print one JSON document instead of lines.
    /// - Returns: the result and exit status (``Status``); one sentence on standard error when it failed.
    public static func write(
        _ content: Content, readers: ReaderFilter, wait: Bool, lock: Bool, confirmed: Bool, json: Bool
    ) async -> CommandOutput {
        let message: [UInt8]
        do {
            message = try self.message(content)
        } catch {
            return .failure("\(error)")
        }
        if lock, !confirmed,
            let refusal = confirm("--lock makes the tag permanently read-only; this cannot be undone. Continue?")
        {
            return refusal
        }
        do {
            let report = try await readers.withCard(wait: wait) { reader, atr, context in
                try await write(message, reader: reader, atr: atr, lock: lock, context: context)
            }
            return .lines(json ? [try JSONOutput.string(report)] : report.lines)
        } catch let failure as WriteFailure {
            return CommandOutput(errors: [failure.sentence], status: failure.status)
        } catch {
            return .failure("\(error)")
        }
    }

    /// Asks on the terminal before something that cannot be undone (`--lock`, `--sun`).
    /// - Parameter question: the question, ending in "Continue?".
    /// - Returns: nil to go on; the refusal when the answer is not yes or there is no terminal to ask on.
    static func confirm(_ question: String) -> CommandOutput? {
        guard isatty(STDIN_FILENO) == 1 else {
            return CommandOutput(
                errors: [
                    question.replacingOccurrences(of: " Continue?", with: "")
                        + " Standard input is not a terminal to confirm on, so add --yes."
                ], status: Status.refused)
        }
        FileHandle.standardError.write(Data((question + " [y/N] ").utf8))
        let answer = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            return CommandOutput(errors: ["not confirmed: nothing was written"], status: Status.refused)
        }
        return nil
    }

    /// Connects to the card in `reader` and writes, on the context's thread.
    private static func write(
        _ message: [UInt8], reader: String, atr: [UInt8], lock: Bool, context: PCSCContext
    ) async throws -> WriteReport {
        let result: TagWriteResult
        do {
            result = try await context.withConnection(to: reader) { connection in
                try await TagWriter().write(message, atr: atr, channel: connection, lock: lock)
            }
        } catch let error as PCSCError {
            throw CommandFailure("\(error)")
        } catch let error as NFCTagError {
            throw WriteFailure(reader: reader, error: error)
        }
        let records = message.isEmpty ? [] : (try? NDEFMessage(decoding: message).records.map(\.summary)) ?? []
        return WriteReport(
            reader: reader, uid: result.uid.map(UID.hex), tech: result.technology.rawValue,
            atr: HexText.string(atr, uppercase: true), records: records, bytes: result.bytesWritten,
            capacity: result.capacity, commands: result.commands, locked: result.isLocked)
    }
}

/// A failed write: its sentence (naming the reader) and its exit status.
struct WriteFailure: Error {
    let sentence: String
    let status: Int32

    init(reader: String, error: NFCTagError) {
        var text = error.message
        if var cause = error.cause as? PCSCError {
            cause.reader = nil
            text += " (\(cause))"
        } else if let cause = error.cause {
            text += " (\(cause))"
        }
        status = Self.status(error.code)
        switch status {
        case TagWriting.Status.refused:
            sentence = "reader \"\(reader)\": \(text); nothing was written"
        case TagWriting.Status.notVerified:
            sentence = "reader \"\(reader)\": \(text)"
        default:
            sentence =
                "reader \"\(reader)\": \(text); the tag holds its old message, an empty one or the new one: present it again and repeat the write"
        }
    }

    /// The exit status of a failure of this kind.
    static func status(_ code: NFCTagError.Code) -> Int32 {
        switch code {
        case .readOnly, .insufficientCapacity, .unsupportedCard, .malformedCapabilityContainer, .malformedTLV,
            .malformedNDEFFile, .readAccessDenied, .messageTooLarge, .authenticationFailed:
            TagWriting.Status.refused
        case .verificationFailed: TagWriting.Status.notVerified
        case .tagRemoved, .unexpectedStatus, .unexpectedResponse: TagWriting.Status.failed
        }
    }
}
