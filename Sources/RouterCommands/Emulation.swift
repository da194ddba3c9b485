public import ArgumentParser
import Foundation
import NDEF
import ReaderFeedback
public import VirtualTag

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

    /// A tag kind, as `--tag` names it.
    public typealias Kind = VirtualTagKind

    /// The tag kinds, as `--tag` names them.
    public static var kinds: [String] { Kind.allCases.map(\.rawValue) }

    /// The default `--tag`.
    public static var defaultKind: Kind { .ntag213 }

    /// vpcd's default address: its first reader, Virtual PCD 00 00.
    public static var defaultVPCD: HostAndPort { HostAndPort(host: "127.0.0.1", port: 35963) }

    /// The kind's `--tag` name.
    /// - Parameter kind: the kind.
    public static func name(of kind: Kind) -> String {
        kind.rawValue
    }

    /// Whether `--tag` names a factory-fresh card, which holds no message (`classic1k-blank` and the like).
    /// - Parameter kind: `--tag`.
    public static func isFactoryFresh(kind: Kind) -> Bool {
        kind.isFactoryFresh
    }

    /// Checks what the tag is to hold before anything runs.
    /// - Parameter content: what the tag holds.
    /// - Throws: ``CommandFailure`` naming the option at fault.
    public static func validate(content: Content) throws(CommandFailure) {
        if case .hex(let text) = content {
            do {
                _ = try HexInput.bytes(text)
            } catch {
                throw CommandFailure("--ndef is not hex: \(text) (\(error.description))")
            }
        }
    }

    /// The SUN keys of an emulated NTAG 424 DNA (`--sun-meta-key`, `--sun-file-key`, `--sun-counter`).
    public struct SUNOptions: Sendable, Hashable {
        /// K_SDMMetaRead.
        public var metaReadKey: [UInt8]
        /// K_SDMFileRead.
        public var fileReadKey: [UInt8]
        /// SDMReadCtr before the first read.
        public var counter: UInt32

        /// Parses the options.
        /// - Parameters:
        ///   - metaReadKey: `--sun-meta-key`, 32 hex digits.
        ///   - fileReadKey: `--sun-file-key`, 32 hex digits.
        ///   - counter: `--sun-counter`.
        /// - Throws: ``CommandFailure`` naming the option that is not 16 bytes of hex.
        public init(metaReadKey: String, fileReadKey: String, counter: UInt32) throws(CommandFailure) {
            func key(_ text: String, _ option: String) throws(CommandFailure) -> [UInt8] {
                guard let bytes = try? HexInput.bytes(text), bytes.count == 16 else {
                    throw CommandFailure("\(option) must be 16 bytes written as 32 hex digits")
                }
                return bytes
            }
            self.metaReadKey = try key(metaReadKey, "--sun-meta-key")
            self.fileReadKey = try key(fileReadKey, "--sun-file-key")
            // SDMReadCtr is 24 bits, and the tag adds one on its first read.
            guard counter < 0xFF_FFFF else { throw CommandFailure("--sun-counter must be below 16777215") }
            self.counter = counter
        }
    }

    /// A gesture: how often the tag is put on the reader, for how long, and how long it stays away between two
    /// presentations (`--repeat`, `--hold`, `--gap`).
    public struct Gesture: Sendable, Hashable {
        /// How long each presentation lasts; until Ctrl-C when nil (one presentation only).
        public var hold: Duration?
        /// How long the tag stays away between two presentations.
        public var gap: Duration
        /// How many presentations.
        public var repeats: Int

        /// Creates a gesture.
        /// - Parameters:
        ///   - hold: `--hold`.
        ///   - gap: `--gap` (default 1 s).
        ///   - repeats: `--repeat` (default 1).
        public init(hold: Duration?, gap: Duration = .seconds(1), repeats: Int = 1) {
            self.hold = hold
            self.gap = gap
            self.repeats = repeats
        }

        /// What is wrong with the options, or nil: several presentations need a `--hold`; `--gap` needs several.
        /// - Parameter gapGiven: whether `--gap` was given.
        public func problem(gapGiven: Bool) -> String? {
            if repeats > 1 && hold == nil { return "--repeat needs --hold: how long each presentation lasts" }
            if gapGiven && repeats == 1 { return "--gap needs --repeat 2 or more" }
            return nil
        }
    }

    /// Presents the tag as the gesture says, until `hold` runs out (or Ctrl-C, or vpcd drops it), then again after
    /// `gap` while repeats remain, reporting progress on standard output.
    /// - Parameters:
    ///   - content: what the tag holds.
    ///   - kind: `--tag`.
    ///   - vpcd: `--vpcd`.
    ///   - gesture: `--hold`, `--gap`, `--repeat`.
    ///   - timeline: `--timeline`: a file to write what the tag saw and when, one JSON object a line, once the
    ///     tag is gone for the last time (docs/cli.md, "emulate").
    ///   - answerDelay: `--answer-delay`: how long the tag takes to answer each command.
    ///   - sun: an NTAG 424 DNA's SUN keys: the tag mirrors a fresh SUN message (query items `p` and `m`) after
    ///     `--uri` on every read, its counter going on from one presentation to the next.
    ///   - showFeedback: `--show-feedback`: print each LED and buzzer command the reader receives and what a real
    ///     ACR122U would have shown (docs/tags.md, "Reader feedback").
    /// - Returns: the exit status: 0 after the tag was presented and removed, 1 (with one sentence on standard
    ///   error) when vpcd cannot be reached, the message does not fit the tag or the timeline cannot be written.
    public static func run(
        content: Content, kind: Kind, vpcd: HostAndPort, gesture: Gesture, timeline: String? = nil,
        answerDelay: Duration = .zero, sun: SUNOptions? = nil, showFeedback: Bool = false
    ) async -> Int32 {
        do {
            let (host, port) = (vpcd.host, vpcd.port)
            var card: any VirtualCard
            if let sun, case .uri(let uri) = content {
                card = try Type4Card.sun(
                    uri: uri, uid: Type4Card.Options().uid, metaReadKey: sun.metaReadKey, fileReadKey: sun.fileReadKey,
                    counter: sun.counter)
            } else {
                card = try kind.card(holding: try message(content))
            }
            let recorder = timeline.map { _ in CardTimeline() }
            let print: @Sendable (EmulatedExchange) -> Void = { exchange in
                Terminal.print(Emulation.feedbackLine(exchange))
            }
            let seen = showFeedback ? print : nil
            for round in 1...gesture.repeats {
                if round > 1 { try await Task.sleep(for: gesture.gap) }
                let presented = try VirtualReader(host: host, port: port, logger: ReaderCommands.logger)
                    .present(
                        card, timeline: recorder, answerDelay: answerDelay,
                        readerCommandSeen: seen)
                let count = gesture.repeats > 1 ? " (\(round) of \(gesture.repeats))" : ""
                Terminal.print("presenting \(kind.rawValue) on vpcd \(host):\(port)\(count)")
                if let duration = gesture.hold {
                    await presented.hold(for: duration)
                } else {
                    await presented.waitUntilGone()
                }
                Terminal.print("removed after \(presented.commandCount) commands")
                if showFeedback { Terminal.print("reader LEDs: \(presented.lights.color.rawValue)") }
                // The next presentation is the same tag as this one left: an NTAG 424 DNA's counter goes on.
                card = presented.card
            }
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

    /// One line of `--show-feedback`: `feedback: led=green beep=100ms×1 (FF 00 40 0E 04 01 00 01 01)`.
    /// - Parameter exchange: the reader's command and what it showed.
    /// - Returns: the line.
    public static func feedbackLine(_ exchange: EmulatedExchange) -> String {
        let bytes = exchange.command.map { HexText.string([$0], uppercase: true) }.joined(separator: " ")
        return "feedback: \(exchange.shown ?? "") (\(bytes))"
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
            return try MessageFile.bytes(at: path)
        }
    }
}

extension VirtualTagKind: ExpressibleByArgument {}
