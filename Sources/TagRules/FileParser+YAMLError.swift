import Yams

extension FileParser {
    /// Turns a YAML syntax error into a diagnostic at its location.
    func reportYAML(_ error: YamlError) {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { " \($0.text)" } ?? ""
            let (line, column) = insideText(line: mark.line, column: mark.column)
            report(line: line, column: column, "YAML syntax error: \(problem)\(detail)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let (line, column) = insideText(line: context.mark.line, column: context.mark.column)
            report(line: line, column: column, "duplicate key '\(duplicates.joined(separator: "', '"))' in a mapping")
        case .reader(let problem, let offset, _, _):
            report(line: 0, column: 0, "cannot read YAML: \(problem)\(offset.map { " at byte \($0)" } ?? "")")
        default:
            report(line: 0, column: 0, "cannot parse YAML: \(error)")
        }
    }

    /// A libyaml mark moved inside the text: at the end of a text without a final line break, libyaml points at
    /// the start of the line after the last; the diagnostic then points just past the last character instead.
    func insideText(line: Int, column: Int) -> (line: Int, column: Int) {
        guard line > lines.count, let last = lines.last else { return (line, column) }
        return (lines.count, last.unicodeScalars.count + 1)
    }
}
