import ArgumentParser
import RouterCommands

/// `tagrouter write`: write one NDEF message to a tag, safely, and read it back.
struct WriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write one NDEF message to a tag (Type 2, Type 4), read it back and verify it.",
        discussion: """
            Writes to the tag already on a reader; with --wait, waits for one to be presented. The write follows \
            the NFC Forum procedure, so a tag taken away at any moment holds its old message, an empty one or the \
            new one. Read-only tags, messages larger than the tag and tags that cannot be written are refused \
            with the tag untouched. Exit status: 0 written and verified; 1 not written (no reader or tag, pcscd, \
            the tag left mid-write); 2 refused, tag untouched (read-only, too large, unsupported tag, --lock not \
            confirmed or impossible); 3 written but the read-back differs; 64 bad options.
            """)

    @Option(help: "Write one URI record, such as https://example.com/door.")
    var uri: String?

    @Option(help: "Write one Text record.")
    var text: String?

    @Option(help: "The language of --text (IANA code).")
    var lang: String = "en"

    @Option(help: "Write this raw NDEF message, as hex (spaces and colons allowed; empty for an empty message).")
    var ndef: String?

    @Option(help: "Write the raw NDEF message held in this file.")
    var file: String?

    @Flag(
        help: ArgumentHelp(
            "Write a Home Assistant tag URI https://www.home-assistant.io/tag/<id>, with the ID given as argument "
                + "or a new random one (a UUID, as Home Assistant makes them)."))
    var haTag = false

    @Argument(help: ArgumentHelp("The Home Assistant tag ID, with --ha-tag.", valueName: "id"))
    var haTagID: String?

    @OptionGroup var readers: ReaderOptions

    @Flag(help: "Wait until a tag is presented instead of failing when none is there.")
    var wait = false

    @Flag(help: "Make the tag permanently read-only after writing (Type 2 only); asks for confirmation.")
    var lock = false

    @Flag(name: .shortAndLong, help: "Do not ask for confirmation before --lock.")
    var yes = false

    @Flag(
        help: """
            Print one JSON document: {"reader", "uid", "tech", "atr", "records", "bytes", "capacity", \
            "commands", "locked"}.
            """)
    var json = false

    private var content: TagWriting.Content? {
        var given: [TagWriting.Content] = []
        if let uri { given.append(.uri(uri)) }
        if let text { given.append(.text(text, language: lang)) }
        if let ndef { given.append(.hex(ndef)) }
        if let file { given.append(.file(file)) }
        if haTag { given.append(.homeAssistant(id: haTagID)) }
        return given.count == 1 ? given[0] : nil
    }

    func validate() throws {
        guard let content else {
            throw ValidationError("give exactly one of --uri, --text, --ndef, --file, --ha-tag")
        }
        if haTagID != nil, !haTag { throw ValidationError("a tag ID argument goes with --ha-tag") }
        do {
            try TagWriting.validate(content)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        guard let content else {
            throw ValidationError("give exactly one of --uri, --text, --ndef, --file, --ha-tag")
        }
        try await TagWriting.write(
            content, readers: readers.filter, wait: wait, lock: lock, confirmed: yes, json: json
        ).finish()
    }
}
