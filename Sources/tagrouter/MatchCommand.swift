import ArgumentParser
import Foundation
import TagActions
import TagRules

/// `tagrouter match`: a dry run of one tag against the rules; shows what would run, runs nothing.
struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Show which rules a tag with this URI would trigger, and the actions, without running them.",
        discussion: """
            Exit status: 0 when a rule matches, 2 when no rule does (the tag would be ignored), 1 when the rules \
            have errors. Secrets from ${VAR} are shown as ${VAR}.
            """
    )

    @Argument(help: "The tag's URI (use \"\" for a tag without one).")
    var uri: String

    @Option(help: "The tag UID in hex (separators and case are free).")
    var uid: String?

    @Option(help: "The reader name.")
    var reader = "cli"

    @Option(help: "The tag technology: type2, type4, type5, mifare-classic, felica or iso14443-4.")
    var tech = "type2"

    @Option(help: "The text of a Text record on the tag.")
    var text: [String] = []

    @Option(parsing: .upToNextOption, help: "Rules files or folders (default: the configured rules path).")
    var rules: [String] = []

    @Flag(help: "Show every rule's verdict and what decided it.")
    var explain = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        if let uid {
            let digits = uid.filter { !":- ".contains($0) }
            guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit), digits.count.isMultiple(of: 2) else {
                throw ValidationError("--uid '\(uid)' is not an even number of hex digits")
            }
        }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let sources =
            rules.isEmpty ? [DefaultRulesPath.resolve(environment: environment, isRoot: getuid() == 0)] : rules
        let result = RuleSet.load(sources: sources, environment: environment)
        guard let ruleSet = result.ruleSet else {
            print(CheckReport(result).text)
            throw ExitCode(1)
        }
        for warning in result.diagnostics { FileHandle.standardError.write(Data((warning.description + "\n").utf8)) }
        let event = TagEvent(
            uid: uid.map { $0.filter { !":- ".contains($0) }.uppercased() }, reader: reader, tech: tech,
            uri: uri.isEmpty ? nil : uri, texts: text)
        let report = MatchReport(
            event: event, ruleSet: ruleSet, explaining: explain, eventID: UUID().uuidString.lowercased(),
            time: Timestamp.rfc3339(Date()))
        print(json ? report.json : report.text)
        if report.isIgnored { throw ExitCode(2) }
    }
}
