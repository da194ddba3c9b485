import ArgumentParser
import RouterCommands

/// `tagrouter emulate`: present a virtual tag through vpcd, so rules can be tried with no hardware.
struct EmulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulate",
        abstract: "Present a virtual tag to pcscd through vpcd (vsmartcard's virtual reader).",
        discussion: """
            Needs pcscd with the vpcd driver (Debian: apt install pcscd vsmartcard-vpcd), which adds the readers \
            "Virtual PCD 00 00" (port 35963) and "Virtual PCD 00 01" (port 35964). The tag stays until --hold \
            runs out or Ctrl-C; --repeat 3 --hold 2s --gap 500ms puts it down three times, as on a shelf. A factory-fresh card (--tag classic1k-blank, classic4k-blank, classicmini-blank) \
            takes none of --uri, --ndef, --file. Exit status: 0 after the tag was presented and removed, 1 when vpcd cannot be \
            reached or the message does not fit the tag.
            """)

    @Option(help: "A URI to put in a URI record, such as https://example.com/door.")
    var uri: String?

    @Option(help: "The NDEF message as hex (spaces and colons allowed).")
    var ndef: String?

    @Option(help: "A file holding the raw NDEF message bytes.")
    var file: String?

    @Option(
        help:
            "The tag: \(Emulation.kinds.joined(separator: ", ")). The -blank MIFARE Classic cards are factory fresh (no MAD, UID only) and take no message."
    )
    var tag = Emulation.defaultKind

    @Option(
        help: ArgumentHelp(
            "vpcd's address (the second reader, Virtual PCD 00 01, is on the next port).", valueName: "host:port"))
    var vpcd = Emulation.defaultVPCD

    @Option(help: "How long to hold the tag, such as 500ms, 10s or 2m; without it, until Ctrl-C.")
    var hold: DurationArgument?

    @Option(
        name: .customLong("repeat"),
        help: "Present the tag this many times, each for --hold (a shelf's put down, take away, put back).")
    var repeats = PositiveCount(1)

    @Option(help: "How long the tag stays away between two presentations of --repeat (default 1s).")
    var gap: DurationArgument?

    @Option(
        help: ArgumentHelp(
            "With --tag ntag424 and --uri: K_SDMMetaRead; the tag mirrors a fresh SUN message (?p=…&m=…) on every read.",
            valueName: "hex"))
    var sunMetaKey: String?

    @Option(help: ArgumentHelp("With --sun-meta-key: K_SDMFileRead, the MAC's key.", valueName: "hex"))
    var sunFileKey: String?

    @Option(help: "With --sun-meta-key: the read counter before the first read (default 0).")
    var sunCounter: UInt32 = 0

    private var sun: Emulation.SUNOptions? {
        guard let sunMetaKey, let sunFileKey else { return nil }
        return try? Emulation.SUNOptions(metaReadKey: sunMetaKey, fileReadKey: sunFileKey, counter: sunCounter)
    }

    private var gesture: Emulation.Gesture {
        Emulation.Gesture(hold: hold?.duration, gap: gap?.duration ?? .seconds(1), repeats: repeats.value)
    }

    @Option(
        help: ArgumentHelp(
            "Write what the tag saw and when (CLOCK_MONOTONIC) to this file, one JSON object a line, once it is gone.",
            discussion: "For latency benchmarks: power-on, ATR, each command and answer, removal.",
            valueName: "path"))
    var timeline: String?

    @Option(
        help: "How long the tag takes to answer each command, such as 10ms (a real reader's pace); none by default.")
    var answerDelay: DurationArgument?

    @Flag(
        help: ArgumentHelp(
            "Print each LED and buzzer command the emulated reader receives, and what a real ACR122U would show.",
            discussion: "The emulated reader answers the ACR122U's pseudo-APDUs (docs/tags.md, \"Reader feedback\")."))
    var showFeedback = false

    private var content: Emulation.Content? {
        let given = [uri.map(Emulation.Content.uri), ndef.map(Emulation.Content.hex), file.map(Emulation.Content.file)]
            .compactMap { $0 }
        if Emulation.isFactoryFresh(kind: tag) { return given.isEmpty ? .hex("") : nil }
        return given.count == 1 ? given[0] : nil
    }

    func validate() throws {
        if Emulation.isFactoryFresh(kind: tag), content == nil {
            throw ValidationError(
                "--tag \(Emulation.name(of: tag)) is a factory-fresh card holding no message: give no --uri, --ndef or --file"
            )
        }
        guard let content else { throw ValidationError("give exactly one of --uri, --ndef, --file") }
        if let problem = gesture.problem(gapGiven: gap != nil) { throw ValidationError(problem) }
        if sunMetaKey != nil || sunFileKey != nil || sunCounter != 0 {
            guard Emulation.name(of: tag) == "ntag424", uri != nil, let sunMetaKey, let sunFileKey else {
                throw ValidationError(
                    "--sun-meta-key and --sun-file-key go together (with --sun-counter, if given), with --tag ntag424 "
                        + "and --uri")
            }
            do {
                _ = try Emulation.SUNOptions(metaReadKey: sunMetaKey, fileReadKey: sunFileKey, counter: sunCounter)
            } catch {
                throw ValidationError(error.description)
            }
        }
        do {
            try Emulation.validate(content: content)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        guard let content else { throw ValidationError("give exactly one of --uri, --ndef, --file") }
        let status = await Emulation.run(
            content: content, kind: tag, vpcd: vpcd, gesture: gesture, timeline: timeline,
            answerDelay: answerDelay?.duration ?? .zero, sun: sun, showFeedback: showFeedback)
        if status != 0 { throw ExitCode(status) }
    }
}
