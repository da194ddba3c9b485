import Foundation
import JSONOutput

/// The outcome of `tagrouter check`: every diagnostic, and the rule and file counts on success.
public struct CheckReport: Sendable, Encodable {
    /// Whether the rules load without errors (warnings allowed).
    public var succeeded: Bool
    /// How many rules were read.
    public var ruleCount: Int
    /// How many rules files were read (the tags file aside).
    public var fileCount: Int
    /// How many tags the tags file enrolls (docs/doors.md, "The tags file").
    public var tagCount: Int
    /// Every error and warning.
    public var diagnostics: [Diagnostic]
    /// The MQTT broker of the `mqtt:` block, `mqtt://host:port as client ID`, when the rules load and have one.
    public var mqtt: String?

    /// Loads and validates rules sources.
    /// - Parameters:
    ///   - sources: files and folders.
    ///   - environment: the variables `${NAME}` may name.
    public init(sources: [String], environment: [String: String]) {
        self.init(RuleSet.load(sources: sources, environment: environment))
    }

    /// Summarizes a load result.
    /// - Parameter result: the load result.
    public init(_ result: LoadResult) {
        succeeded = result.ruleSet != nil
        ruleCount = result.ruleCount
        fileCount = result.fileCount
        tagCount = result.ruleSet?.tags.entries.count ?? 0
        diagnostics = result.diagnostics
        mqtt = result.ruleSet?.mqtt.map { "\($0.url) as client \($0.clientID)" }
    }

    /// The human rendering: diagnostics compiler style, then `12 rules in 3 files` on success.
    public var text: String {
        var parts = diagnostics.map(\.description)
        if succeeded {
            parts.append(
                "\(ruleCount) rule\(ruleCount == 1 ? "" : "s") in \(fileCount) file\(fileCount == 1 ? "" : "s")"
                    + (tagCount > 0 ? ", \(tagCount) enrolled tag\(tagCount == 1 ? "" : "s")" : ""))
            if let mqtt { parts.append("MQTT broker \(mqtt)") }
        } else {
            let errors = diagnostics.count { $0.severity == .error }
            parts.append("\(errors) error\(errors == 1 ? "" : "s")")
        }
        return parts.joined(separator: "\n")
    }

    /// The JSON rendering for editors and CI: `{"succeeded", "ruleCount", "fileCount", "tagCount",
    /// "diagnostics": [...]}`.
    public var json: String {
        // Strings, numbers and optionals always encode.
        try! JSONOutput.string(self)
    }
}
