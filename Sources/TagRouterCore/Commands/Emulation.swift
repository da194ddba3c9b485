import Foundation
import NDEF
import TagRules
import VirtualTag

/// `tagrouter emulate` (docs/cli.md): a virtual tag presented through vpcd, so rules can be tried with no hardware.
public enum Emulation {
    /// What the tag holds.
    public enum Content: Sendable {
        /// One URI record.
        case uri(String)
        /// An NDEF message as hex.
        case hex(String)
        /// A file holding the raw message.
        case file(String)
    }

    /// The tag kinds, as `--tag` names them.
    public static var kinds: [String] { VirtualTagKind.allCases.map(\.rawValue) }

    /// The default `--tag`.
    public static var defaultKind: String { VirtualTagKind.ntag213.rawValue }

    /// Whether `--tag` names a factory-fresh card, which holds no message (`classic1k-blank` and the like).
    /// - Parameter kind: `--tag`.
    public static func isFactoryFresh(kind: String) -> Bool {
        VirtualTagKind(rawValue: kind)?.isFactoryFresh ?? false
    }

    /// Checks the options before anything runs.
    /// - Parameters:
    ///   - content: what the tag holds.
    ///   - kind: `--tag`.
    ///   - vpcd: `--vpcd`.
    ///   - hold: `--hold`.
    ///   - answerDelay: `--answer-delay`.
    /// - Throws: ``CommandFailure`` naming the option at fault.
    public static func validate(
        content: Content, kind: String, vpcd: String, hold: String?, answerDelay: String? = nil
    ) throws(CommandFailure) {
        guard VirtualTagKind(rawValue: kind) != nil else {
            throw CommandFailure("unknown --tag \(kind); use one of \(kinds.joined(separator: ", "))")
        }
        _ = try address(vpcd)
        if case .hex(let text) = content {
            do {
                _ = try HexInput.bytes(text)
            } catch {
                throw CommandFailure("--ndef is not hex: \(text) (\(error.description))")
            }
        }
        if let hold, DurationText.parse(hold) == nil {
            throw CommandFailure("--hold \(hold) is not a duration such as 500ms, 10s or 2m")
        }
        if let answerDelay, DurationText.parse(answerDelay) == nil {
            throw CommandFailure("--answer-delay \(answerDelay) is not a duration such as 10ms")
        }
    }

    /// Presents the tag until `hold` runs out or vpcd drops it, reporting progress on standard output.
    /// - Parameters:
    ///   - content: what the tag holds.
    ///   - kind: `--tag`.
    ///   - vpcd: `--vpcd`, `HOST:PORT`.
    ///   - hold: `--hold`; until Ctrl-C when nil.
    ///   - timeline: `--timeline`: a file to write what the tag saw and when, one JSON object a line, once the
    ///     tag is gone (docs/cli.md, "emulate").
    ///   - answerDelay: `--answer-delay`: how long the tag takes to answer each command.
    /// - Returns: the exit status: 0 after the tag was presented and removed, 1 (with one sentence on standard
    ///   error) when vpcd cannot be reached, the message does not fit the tag or the timeline cannot be written.
    public static func run(
        content: Content, kind: String, vpcd: String, hold: String?, timeline: String? = nil,
        answerDelay: String? = nil
    ) async -> Int32 {
        do {
            let (host, port) = try address(vpcd)
            let kind = VirtualTagKind(rawValue: kind) ?? .ntag213
            let card = try kind.card(holding: try message(content))
            let recorder = timeline.map { _ in CardTimeline() }
            let presented = try VirtualReader(host: host, port: port, logger: ReaderCommands.logger)
                .present(card, timeline: recorder, answerDelay: answerDelay.flatMap(DurationText.parse) ?? .zero)
            Terminal.print("presenting \(kind.rawValue) on vpcd \(host):\(port)")
            if let duration = hold.flatMap(DurationText.parse) {
                await presented.hold(for: duration)
            } else {
                await presented.waitUntilGone()
            }
            Terminal.print("removed after \(presented.commandCount) commands")
            if let timeline, let recorder {
                try write(recorder, to: timeline)
            }
            return 0
        } catch let error as NDEFError {
            if case .uri(let uri) = content {
                Terminal.printError("--uri \(uri): \(error)")
            } else {
                Terminal.printError("\(error)")
            }
        } catch {
            Terminal.printError("\(error)")
        }
        return 1
    }

    /// Writes the timeline as JSON lines: `{"event":"command","t_ns":…,"apdu":"FFCA000000"}`.
    private static func write(_ timeline: CardTimeline, to path: String) throws {
        var text = ""
        for entry in timeline.entries {
            let apdu = HexText.string(entry.apdu, uppercase: true)
            text += #"{"event":"\#(entry.event.rawValue)","t_ns":\#(entry.nanoseconds),"apdu":"\#(apdu)"}"# + "\n"
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw CommandFailure("--timeline \(path): cannot be written")
        }
    }

    private static func message(_ content: Content) throws -> [UInt8] {
        switch content {
        case .uri(let uri):
            return try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
        case .hex(let text):
            return try HexInput.bytes(text)
        case .file(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CommandFailure("--file \(path): cannot be opened")
            }
            defer { try? handle.close() }
            // No tag holds more than 32 KiB: read one byte more to tell a file that is too large.
            let data = (try? handle.read(upToCount: 32_768 + 1)) ?? Data()
            guard data.count <= 32_768 else {
                throw CommandFailure("--file \(path): larger than 32768 bytes, more than any tag holds")
            }
            return [UInt8](data)
        }
    }

    private static func address(_ vpcd: String) throws(CommandFailure) -> (String, UInt16) {
        guard let colon = vpcd.lastIndex(of: ":"), let port = UInt16(vpcd[vpcd.index(after: colon)...]),
            colon != vpcd.startIndex
        else {
            throw CommandFailure("--vpcd \(vpcd) is not HOST:PORT")
        }
        return (String(vpcd[..<colon]), port)
    }
}
