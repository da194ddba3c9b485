import Foundation
import JSONOutput
import NDEF
import NFCTag
import NTAG424
import PCSC
import SUNMessage

/// `tagrouter write --sun` (docs/cli.md, docs/tags.md "Provisioning an NTAG 424 DNA"): an NTAG 424 DNA made to
/// mirror a SUN message into its URL on every read, with keys taken from environment variables, never from the
/// command line.
public enum SUNProvisioning {
    /// What to provision.
    public struct Options: Sendable {
        /// The URL before the SUN items.
        public var uri: String
        /// The query item of the PICCData and of the MAC (the rule's `piccData:` and `mac:`).
        public var piccItem = "p"
        public var macItem = "m"
        /// The environment variables holding the new K_SDMMetaRead, K_SDMFileRead (or the master key it is
        /// diversified from) and AppMasterKey.
        public var metaReadKey: String
        public var fileReadKey: String
        public var masterKey: String
        /// The environment variables holding keys 0, 1 and 2 as the tag has them now; nil: the factory's zero key.
        public var current: [String?] = [nil, nil, nil]
        /// The rule's `diversify:` input after the UID (application ID, system identifier); nil: one key for all.
        public var diversification: [UInt8]?
        /// Change nothing; list the commands.
        public var dryRun = false

        /// Creates the options.
        /// - Parameters:
        ///   - uri: the URL.
        ///   - metaReadKey: the variable of K_SDMMetaRead.
        ///   - fileReadKey: the variable of K_SDMFileRead.
        ///   - masterKey: the variable of the AppMasterKey.
        public init(uri: String, metaReadKey: String, fileReadKey: String, masterKey: String) {
            self.uri = uri
            self.metaReadKey = metaReadKey
            self.fileReadKey = fileReadKey
            self.masterKey = masterKey
        }
    }

    /// The name of the variable an option gives: `DOOR_META_KEY` or `${DOOR_META_KEY}`.
    /// - Parameters:
    ///   - text: the option's value.
    ///   - option: the option, for the error.
    /// - Returns: the variable's name.
    /// - Throws: ``CommandFailure`` for a key given in place of a name, or a name that is not one.
    public static func variableName(_ text: String, option: String) throws(CommandFailure) -> String {
        var name = Substring(text)
        if name.hasPrefix("${"), name.hasSuffix("}") { name = name.dropFirst(2).dropLast() }
        if name.count == 32, HexText.bytes(name) != nil {
            throw CommandFailure(
                "\(option) takes the name of an environment variable holding the key, not the key: a key on the command line ends up in the shell's history and in ps"
            )
        }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
        guard let first = name.first, !first.isNumber, name.allSatisfy(allowed.contains) else {
            throw CommandFailure("\(option) \(PrintableText.line(text)): not an environment variable name")
        }
        return String(name)
    }

    /// The diversification input after the UID: `--diversify-application-id` (3 bytes) and
    /// `--diversify-system-identifier` (6 to 20 bytes), as the rule's `diversify:` has them.
    /// - Parameters:
    ///   - applicationID: hex.
    ///   - systemIdentifier: hex.
    /// - Returns: the bytes.
    /// - Throws: ``CommandFailure`` naming the option.
    public static func diversification(applicationID: String, systemIdentifier: String) throws(CommandFailure)
        -> [UInt8]
    {
        guard let application = HexText.bytes(applicationID), application.count == 3 else {
            throw CommandFailure("--diversify-application-id is 3 bytes, as 6 hex digits")
        }
        guard let system = HexText.bytes(systemIdentifier), (6...20).contains(system.count) else {
            throw CommandFailure("--diversify-system-identifier is 6 to 20 bytes, as hex")
        }
        return application + system
    }

    /// Checks the options before anything runs: each key option names a variable (not a key), and the URL
    /// template can be made.
    /// - Parameter options: the options.
    /// - Throws: ``CommandFailure`` naming the option at fault.
    public static func validate(_ options: Options) throws(CommandFailure) {
        for (variable, option) in keyOptions(options) {
            if let variable { _ = try variableName(variable, option: option) }
        }
        do {
            _ = try NTAG424Provisioner.Template(uri: options.uri, piccItem: options.piccItem, macItem: options.macItem)
        } catch {
            throw CommandFailure("--uri \(PrintableText.line(options.uri)): \(error.message)")
        }
    }

    /// Each key option's variable and the option's name: the new keys, then keys 0, 1 and 2 as they are now.
    private static func keyOptions(_ options: Options) -> [(String?, String)] {
        [
            (options.masterKey, "--master-key"), (options.metaReadKey, "--meta-read-key"),
            (options.fileReadKey, "--file-read-key"),
        ]
            + zip(options.current, ["--current-master-key", "--current-meta-read-key", "--current-file-read-key"])
            .map { ($0, $1) }
    }

    /// The keys, read from the environment.
    /// - Parameters:
    ///   - options: the options.
    ///   - environment: the environment.
    /// - Returns: the keys for the provisioner.
    /// - Throws: ``CommandFailure`` naming the variable that is unset or not 32 hex digits (never its value).
    static func keys(_ options: Options, environment: [String: String]) throws(CommandFailure)
        -> NTAG424Provisioner.Keys
    {
        func key(_ variable: String, _ option: String) throws(CommandFailure) -> [UInt8] {
            let name = try variableName(variable, option: option)
            guard let value = environment[name] else {
                throw CommandFailure("\(option): the environment variable \(name) is not set")
            }
            guard let bytes = HexText.bytes(value.trimmingCharacters(in: .whitespaces)), bytes.count == 16 else {
                throw CommandFailure(
                    "\(option): the environment variable \(name) is not 32 hex digits (an AES-128 key)")
            }
            return bytes
        }
        var values: [[UInt8]] = []
        for (variable, option) in keyOptions(options) {
            values.append(
                try variable.map { variable throws(CommandFailure) in try key(variable, option) }
                    ?? NTAG424Provisioner.Keys.factory)
        }
        let (master, metaRead, fileRead) = (values[0], values[1], values[2])
        let current = Array(values[3...])
        let diversification = options.diversification
        return NTAG424Provisioner.Keys(
            master: master, metaRead: metaRead,
            fileRead: { uid in
                guard let diversification else { return fileRead }
                return try SUNCrypto.diversified(masterKey: fileRead, input: uid + diversification)
            }, current: current)
    }

    /// `tagrouter write --sun`: provisions the tag on the first matching reader, or the next one presented.
    /// - Parameters:
    ///   - options: what to provision.
    ///   - readers: `--reader`.
    ///   - wait: wait for a tag.
    ///   - confirmed: `--yes`: no question asked.
    ///   - json: one JSON document instead of lines.
    ///   - environment: where the keys are read; nil: the process's environment.
    /// - Returns: the report and the exit status (``TagWriting/Status``).
    public static func provision(
        _ options: Options, readers: ReaderFilter, wait: Bool, confirmed: Bool, json: Bool,
        environment: [String: String]? = nil
    ) async -> CommandOutput {
        let keys: NTAG424Provisioner.Keys
        let template: NTAG424Provisioner.Template
        do {
            keys = try Self.keys(options, environment: environment ?? ProcessInfo.processInfo.environment)
            template = try NTAG424Provisioner.Template(
                uri: options.uri, piccItem: options.piccItem, macItem: options.macItem)
        } catch let error as CommandFailure {
            return CommandOutput(errors: [error.description], status: TagWriting.Status.refused)
        } catch {
            return CommandOutput(errors: ["\(error)"], status: TagWriting.Status.refused)
        }
        if !options.dryRun, !confirmed,
            let refusal = TagWriting.confirm(
                "--sun changes the tag's keys and makes its URL writable with the new master key alone; without the "
                    + "keys the tag cannot be changed again. Continue?")
        {
            return refusal
        }
        do {
            let report = try await readers.withCard(wait: wait) { reader, atr, context in
                let result: NTAG424Provisioner.Result
                do {
                    result = try await context.withConnection(to: reader) { connection in
                        try await NTAG424Provisioner().provision(
                            template, keys: keys, atr: atr, channel: connection, dryRun: options.dryRun)
                    }
                } catch let error as NFCTagError {
                    throw Failure(reader: reader, error: error)
                }
                return SUNProvisionReport(reader: reader, uri: template.uri, result: result, dryRun: options.dryRun)
            }
            return .lines(json ? [try JSONOutput.string(report)] : report.lines)
        } catch let failure as Failure {
            return Self.failure(failure.error, reader: failure.reader)
        } catch let error as PCSCError {
            return .failure("\(error)")
        } catch {
            return .failure("\(error)")
        }
    }

    private struct Failure: Error {
        let reader: String
        let error: NFCTagError
    }

    /// The sentence and status of a failed provisioning.
    private static func failure(_ error: NFCTagError, reader: String) -> CommandOutput {
        let status = WriteFailure.status(error.code)
        switch status {
        case TagWriting.Status.failed:
            return CommandOutput(
                errors: [
                    "reader \"\(reader)\": \(error.message); every command is atomic on the tag: present it again and run the same command, "
                        + "which finds the keys the tag holds and finishes (docs/tags.md)"
                ], status: TagWriting.Status.failed)
        default:
            return CommandOutput(errors: ["reader \"\(reader)\": \(error.message)"], status: status)
        }
    }
}

/// What `tagrouter write --sun` tells: the JSON document and the human lines.
public struct SUNProvisionReport: Encodable, Sendable {
    /// The reader.
    public var reader: String
    /// The UID, uppercase hex.
    public var uid: String
    /// The URL template written.
    public var uri: String
    /// Whether nothing was changed (`--dry-run`).
    public var dryRun: Bool
    /// The commands sent, each with what it found or did.
    public var sent: [String]
    /// `--dry-run`: the commands that would follow.
    public var planned: [String]
    /// The keys changed.
    public var keysChanged: [Int]
    /// The keys that held their new value already.
    public var keysAlreadyNew: [Int]
    /// The read counter of the message read back and verified.
    public var counter: UInt32?

    init(reader: String, uri: String, result: NTAG424Provisioner.Result, dryRun: Bool) {
        self.reader = reader
        self.uid = HexText.string(result.uid, uppercase: true)
        self.uri = uri
        self.dryRun = dryRun
        sent = result.sent
        planned = result.planned
        keysChanged = result.keysChanged
        keysAlreadyNew = result.keysAlreadyNew
        counter = result.counter
    }

    /// The human form.
    public var lines: [String] {
        var lines = ["reader   \(reader)", "uid      \(uid)", "url      \(DecodeOutput.printable(uri))"]
        lines += sent.map { "sent     \($0)" }
        lines += planned.map { "would    \($0)" }
        if dryRun {
            lines.append("dry run: nothing was changed")
        } else if let counter {
            func list(_ keys: [Int]) -> String { keys.map(String.init).joined(separator: ", ") }
            var done = keysChanged.isEmpty ? "no key changed" : "keys \(list(keysChanged)) changed"
            if !keysAlreadyNew.isEmpty { done += ", keys \(list(keysAlreadyNew)) already held the new keys" }
            lines.append("provisioned: \(done); SUN message verified, read counter \(counter)")
        }
        return lines
    }
}
