import Yams

extension FileParser {
    static let historyKeys = ["keep", "maxSize"]
    /// The shortest `keep`: an hour.
    static let shortestKeep: Duration = .seconds(3600)
    /// The smallest `maxSize`: 1 MB.
    static let smallestHistorySize: Int64 = 1_000_000

    /// Parses the `history:` block (docs/operations.md, "Retention of the history"); a second block in the rule
    /// set is an error naming the first.
    func parseHistoryBlock(_ node: Node, keyNode: Node) {
        if let first = knownHistory {
            error(keyNode, "a second 'history' block (a rule set has one; the first is at \(first))")
            return
        }
        let here = location(keyNode)
        knownHistory = here
        guard let mapping = mapping(node, "'history'") else { return }
        var settings = HistorySettings(keep: nil, maxSize: nil, location: here)
        for item in entries(mapping, allowed: Self.historyKeys, context: "in 'history'") {
            if item.key == "keep" {
                guard let keep = duration(item.value, "'keep'") else { continue }
                if keep < Self.shortestKeep {
                    error(item.value, "'keep' must be at least 1h (write 400d for 400 days)")
                } else {
                    settings.keep = keep
                }
            } else {
                guard let (text, display) = string(item.value, "'maxSize'") else { continue }
                guard let size = SizeText.parse(text) else {
                    error(item.value, "'maxSize' '\(display)' is not a size (write 500MB, 2GB or 1GiB)")
                    continue
                }
                if size < Self.smallestHistorySize {
                    error(item.value, "'maxSize' must be at least 1MB")
                } else {
                    settings.maxSize = size
                }
            }
        }
        historySettings = settings
    }
}
