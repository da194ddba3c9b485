import ArgumentParser
import Foundation
import RouterCommands

/// `tagrouter bundle`: signed bundles of rules for many hosts (docs/fleet.md).
struct BundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Make and check signed bundles of rules, which routers take with run --bundle-from.",
        discussion: """
            A bundle is a rules folder (its rules files and tags.yaml) packed as one file with a manifest and an \
            Ed25519 signature. The private key stays on the machine that packs; each router trusts the public key \
            (run --bundle-key).
            """,
        subcommands: [
            BundleKeygenCommand.self, BundlePackCommand.self, BundleVerifyCommand.self, BundlePublishCommand.self,
        ]
    )
}

/// `tagrouter bundle keygen`.
struct BundleKeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make a signing key: NAME.key (mode 0600, keep it off the routers) and NAME.pub.",
        discussion: "Exit status: 0, or 1 when either file exists or cannot be written.")

    @Option(help: ArgumentHelp("The key files' path without extension.", valueName: "name"))
    var out: String

    func run() throws {
        try BundleCommands.keygen(out: out).finish()
    }
}

/// `tagrouter bundle pack`.
struct BundlePackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Check a rules folder and pack it, signed, into a bundle file.",
        discussion: """
            The folder is checked as `tagrouter check` does, in this shell's environment; any error and nothing is \
            packed. Only *.yaml and *.yml files are packed; a symlink, a subfolder or another file in the folder is \
            refused, and hidden files that are not YAML (.tags.lock) are left out. Exit status: 0, or 1 (check's report, or the reason).
            """)

    @Option(help: ArgumentHelp("The private key file (from bundle keygen).", valueName: "name.key"))
    var key: String

    @Option(help: ArgumentHelp("The bundle's version: routers take only a newer one than they run.", valueName: "n"))
    var version: PositiveCount

    @Option(help: ArgumentHelp("The bundle file to write.", valueName: "file"))
    var out: String

    @Argument(help: ArgumentHelp("The rules folder.", valueName: "dir"))
    var directory: String

    func run() throws {
        try BundleCommands.pack(key: key, version: version, out: out, directory: directory).finish()
    }
}

/// `tagrouter bundle verify`.
struct BundleVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a bundle file's signature and contents and print what it holds.",
        discussion: "Exit status: 0 when it verifies with one of the keys, else 1 with the reason.")

    @Option(help: ArgumentHelp("A public key file trusted (repeatable).", valueName: "name.pub"))
    var key: [String]

    @Argument(help: ArgumentHelp("The bundle file.", valueName: "file"))
    var file: String

    func run() throws {
        try BundleCommands.verify(keys: key, file: file).finish()
    }
}

/// `tagrouter bundle publish`.
struct BundlePublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a bundle file as an MQTT topic's retained message, for routers with an mqtt:// source.",
        discussion: """
            The broker's user name, password and CA come from TAGROUTER_MQTT_USERNAME, TAGROUTER_MQTT_PASSWORD and \
            TAGROUTER_MQTT_CA. Exit status: 0 once the broker acknowledged the message, else 1 with the reason.
            """)

    @Option(
        help: ArgumentHelp("The broker: HOST[:PORT], mqtt://HOST[:PORT] or mqtts://HOST[:PORT].", valueName: "broker"))
    var broker: BrokerAddress

    @Option(help: ArgumentHelp("The topic (default: tagrouter/fleet/bundle).", valueName: "topic"))
    var topic = "tagrouter/fleet/bundle"

    @Option(
        help: ArgumentHelp(
            "A public key file to verify the bundle with before publishing (repeatable).", valueName: "name.pub"))
    var key: [String] = []

    @Argument(help: ArgumentHelp("The bundle file.", valueName: "file"))
    var file: String

    func run() async throws {
        try await BundleCommands.publish(
            broker: broker, topic: topic, keys: key, file: file, environment: ProcessInfo.processInfo.environment
        ).finish()
    }
}
