import ArgumentParser
import RouterCommands

/// `tagrouter write`: write one NDEF message to a tag, safely, and read it back.
struct WriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract:
            "Write one NDEF message to a tag (Types 1 to 5, MIFARE Classic), read it back and verify it; --sun provisions an NTAG 424 DNA.",
        discussion: """
            Writes to the tag already on a reader; with --wait, waits for one to be presented. The write follows \
            the NFC Forum procedure, so a tag taken away at any moment holds its old message, an empty one or the \
            new one. Read-only tags, messages larger than the tag and tags that cannot be written are refused \
            with the tag untouched. Exit status: 0 written and verified; 1 not written (no reader or tag, pcscd, \
            the tag left mid-write); 2 refused, tag untouched (read-only, too large, unsupported tag, --lock not \
            confirmed or impossible); 3 written but the read-back differs; 64 bad options.

            With --sun, provisions an NTAG 424 DNA for SUN (docs/tags.md): the URL of --uri with the SUN items \
            appended, SDM switched on, and keys 1 (SDMMetaRead), 2 (SDMFileRead) and 0 (AppMasterKey) changed to \
            the keys held by the environment variables named by --meta-read-key, --file-read-key and --master-key; \
            the tag is then read back and its message verified. --dry-run lists the commands and changes nothing. \
            A tag taken away at any moment is finished by running the same command again.
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

    @Flag(help: "Provision an NTAG 424 DNA for SUN with the URL of --uri (see below); asks for confirmation.")
    var sun = false

    @Option(help: ArgumentHelp("--sun: the environment variable holding the new K_SDMMetaRead.", valueName: "var"))
    var metaReadKey: String?

    @Option(
        help: ArgumentHelp(
            "--sun: the environment variable holding the new K_SDMFileRead (or the master key it is diversified from).",
            valueName: "var"))
    var fileReadKey: String?

    @Option(help: ArgumentHelp("--sun: the environment variable holding the new AppMasterKey.", valueName: "var"))
    var masterKey: String?

    @Option(
        help: ArgumentHelp(
            "--sun: the environment variable holding the tag's AppMasterKey now (default: the factory key).",
            valueName: "var"))
    var currentMasterKey: String?

    @Option(help: ArgumentHelp("--sun: the variable holding key 1 now (default: the factory key).", valueName: "var"))
    var currentMetaReadKey: String?

    @Option(help: ArgumentHelp("--sun: the variable holding key 2 now (default: the factory key).", valueName: "var"))
    var currentFileReadKey: String?

    @Option(help: "--sun: the query item of the PICCData (the rule's piccData).")
    var piccDataItem = "p"

    @Option(help: "--sun: the query item of the MAC (the rule's mac).")
    var macItem = "m"

    @Option(help: "--sun: diversify the file read key per UID, with this application ID (the rule's diversify).")
    var diversifyApplicationID: String?

    @Option(help: "--sun: the system identifier of the diversification, as hex.")
    var diversifySystemIdentifier: String?

    @Flag(help: "--sun: authenticate and list the commands that would be sent; change nothing.")
    var dryRun = false

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

    /// `--sun`'s options, checked: the variables' names, the diversification, the URL template.
    private func sunOptions() throws -> SUNProvisioning.Options {
        guard let uri, let metaReadKey, let fileReadKey, let masterKey else {
            throw ValidationError("--sun needs --uri, --meta-read-key, --file-read-key and --master-key")
        }
        var options = SUNProvisioning.Options(
            uri: uri, metaReadKey: metaReadKey, fileReadKey: fileReadKey, masterKey: masterKey)
        options.current = [currentMasterKey, currentMetaReadKey, currentFileReadKey]
        options.piccItem = piccDataItem
        options.macItem = macItem
        options.dryRun = dryRun
        do {
            switch (diversifyApplicationID, diversifySystemIdentifier) {
            case (nil, nil):
                break
            case (let application?, let system?):
                options.diversification = try SUNProvisioning.diversification(
                    applicationID: application, systemIdentifier: system)
            default:
                throw CommandFailure("--diversify-application-id and --diversify-system-identifier go together")
            }
            try SUNProvisioning.validate(options)
        } catch let error as CommandFailure {
            throw ValidationError(error.description)
        }
        return options
    }

    private func validateSUN() throws {
        let sunOnly: [(String, Bool)] = [
            ("--meta-read-key", metaReadKey != nil), ("--file-read-key", fileReadKey != nil),
            ("--master-key", masterKey != nil), ("--current-master-key", currentMasterKey != nil),
            ("--current-meta-read-key", currentMetaReadKey != nil),
            ("--current-file-read-key", currentFileReadKey != nil), ("--picc-data-item", piccDataItem != "p"),
            ("--mac-item", macItem != "m"), ("--diversify-application-id", diversifyApplicationID != nil),
            ("--diversify-system-identifier", diversifySystemIdentifier != nil), ("--dry-run", dryRun),
        ]
        guard sun else {
            if let given = sunOnly.first(where: \.1) { throw ValidationError("\(given.0) goes with --sun") }
            return
        }
        guard uri != nil, text == nil, ndef == nil, file == nil, !haTag else {
            throw ValidationError("--sun writes the URL of --uri, and nothing else")
        }
        guard !lock else { throw ValidationError("--sun and --lock do not go together: --sun sets who may write") }
        _ = try sunOptions()
    }

    func validate() throws {
        try validateSUN()
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
        if sun {
            try await SUNProvisioning.provision(
                try sunOptions(), readers: readers.filter, wait: wait, confirmed: yes, json: json
            ).finish()
            return
        }
        guard let content else {
            throw ValidationError("give exactly one of --uri, --text, --ndef, --file, --ha-tag")
        }
        try await TagWriting.write(
            content, readers: readers.filter, wait: wait, lock: lock, confirmed: yes, json: json
        ).finish()
    }
}
