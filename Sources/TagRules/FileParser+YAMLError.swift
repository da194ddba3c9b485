import Yams

extension FileParser {
    /// Turns a YAML syntax error into a diagnostic at its location.
    func reportYAML(_ error: YamlError) {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { " \($0.text)" } ?? ""
            report(line: mark.line, column: mark.column, "YAML syntax error: \(problem)\(detail)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            report(
                line: context.mark.line, column: context.mark.column,
                "duplicate key '\(duplicates.joined(separator: "', '"))' in a mapping")
        case .reader(let problem, let offset, _, _):
            report(line: 0, column: 0, "cannot read YAML: \(problem)\(offset.map { " at byte \($0)" } ?? "")")
        default:
            report(line: 0, column: 0, "cannot parse YAML: \(error)")
        }
    }
}
