import ArgumentParser
import RouterCommands
import TagRouterCore

/// The `tagrouter` command line: reads NFC tags and routes them to commands, apps and webhooks.
@main
struct TagRouterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tagrouter",
        abstract: "Background tag reading for Linux: route NFC tags to commands, apps and webhooks.",
        version: Version.description,
        subcommands: [
            DecodeCommand.self, ReadersCommand.self, ReadCommand.self, EmulateCommand.self, CheckCommand.self,
            MatchCommand.self, HistoryCommand.self, RunCommand.self, DoctorCommand.self, WriteCommand.self,
            AASACommand.self, LearnCommand.self, TagsCommand.self, BundleCommand.self, FleetCommand.self,
            ConsoleLoginCommand.self, ConsolePasswordCommand.self,
        ]
    )
}
