import ArgumentParser
import RouterCommands

/// `tagrouter tags`: list and edit the enrolled tags of tags.yaml.
struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags",
        abstract: "List the enrolled tags of tags.yaml, or disable, enable or remove one.",
        subcommands: [List.self, Disable.self, Enable.self, Remove.self]
    )

    /// `tags list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the enrolled tags and their state today (active, disabled, not-yet-valid, expired).")

        @OptionGroup var rules: RulesOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            try TagsCommands.list(sources: rules.rules, json: json).finish()
        }
    }

    /// `tags disable`.
    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable a tag: every rule refuses it (reason disabled) until it is enabled.")

        @Argument(help: "The tag's name or UID.")
        var tag: String

        @OptionGroup var rules: RulesOptions

        func run() throws {
            try TagsCommands.edit(.disable, tag, sources: rules.rules).finish()
        }
    }

    /// `tags enable`.
    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled tag again.")

        @Argument(help: "The tag's name or UID.")
        var tag: String

        @OptionGroup var rules: RulesOptions

        func run() throws {
            try TagsCommands.edit(.enable, tag, sources: rules.rules).finish()
        }
    }

    /// `tags remove`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a tag's entry from tags.yaml.")

        @Argument(help: "The tag's name or UID.")
        var tag: String

        @OptionGroup var rules: RulesOptions

        func run() throws {
            try TagsCommands.edit(.remove, tag, sources: rules.rules).finish()
        }
    }
}
