import ArgumentParser
import Foundation
import RouterCommands

/// `tagrouter fleet`: the hosts of a site, seen through their status documents (docs/fleet.md).
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "See every router of a site through the status documents they keep on the MQTT broker.",
        subcommands: [FleetStatusCommand.self]
    )
}

/// `tagrouter fleet status`.
struct FleetStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print which host runs which bundle, and which are behind, offline or unsynchronised.",
        discussion: """
            Reads the retained status document of every host (PREFIX/+/status). The broker's user name, password \\
            and CA come from TAGROUTER_MQTT_USERNAME, TAGROUTER_MQTT_PASSWORD and TAGROUTER_MQTT_CA. Exit status: 0 \\
            when every host is online, runs the newest bundle and has a synchronised clock; 1 when one is not, when \\
            a document cannot be read, when no host was seen, or when the broker cannot be reached.
            """)

    @Option(
        help: ArgumentHelp("The broker: HOST[:PORT], mqtt://HOST[:PORT] or mqtts://HOST[:PORT].", valueName: "broker"))
    var broker: BrokerAddress

    @Option(help: ArgumentHelp("The topic level(s) before each host's name (default: tagrouter).", valueName: "prefix"))
    var prefix = "tagrouter"

    @Flag(help: "One JSON document instead of the table.")
    var json = false

    @Option(help: ArgumentHelp("How long to collect documents after subscribing (default: 2s).", valueName: "duration"))
    var wait = DurationArgument(argument: "2s")!

    func run() async throws {
        do {
            let hosts = try await FleetStatus.collect(
                broker: broker, prefix: prefix, wait: wait.duration, environment: ProcessInfo.processInfo.environment)
            try FleetStatus.report(hosts, json: json).finish()
        } catch let failure as CommandFailure {
            try CommandOutput.failure(failure.description).finish()
        }
    }
}
