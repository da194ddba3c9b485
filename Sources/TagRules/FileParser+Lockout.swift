import Yams

extension FileParser {
    static let lockoutKeys = ["after", "within", "for"]

    /// Parses a rule's `lockout:` (docs/doors.md, "Lockout"): `after` (1 to 1,000 refusals), `within` and `for`
    /// (1s to 1d), each required; every problem reported.
    func parseLockout(_ node: Node, context: String) -> Lockout? {
        guard let mapping = mapping(node, "'lockout'") else { return nil }
        let items = entries(mapping, allowed: Self.lockoutKeys, context: "in 'lockout' \(context)")
        var after: Int?
        var within: Duration?
        var period: Duration?
        var valid = true
        for item in items {
            if item.key == "after" {
                guard let (text, display) = string(item.value, "'after'") else {
                    valid = false
                    continue
                }
                guard let count = Int(text), (1...1000).contains(count) else {
                    error(item.value, "'after' must be a whole number of refusals from 1 to 1000, not '\(display)'")
                    valid = false
                    continue
                }
                after = count
            } else {
                let what = "'\(item.key)'"
                guard let value = duration(item.value, what) else {
                    valid = false
                    continue
                }
                guard value >= .seconds(1), value <= .seconds(86_400) else {
                    error(item.value, "\(what) must be from 1s to 1d, not '\(DurationText.format(value))'")
                    valid = false
                    continue
                }
                if item.key == "within" { within = value } else { period = value }
            }
        }
        // A key written with a bad value was reported already; only the keys left out are missing.
        let written = Set(items.map(\.key))
        let missing = Self.lockoutKeys.filter { !written.contains($0) }.map { "'\($0)'" }
        if !missing.isEmpty {
            error(
                node,
                "'lockout' \(context) needs \(missing.joined(separator: ", ")) (write { after: 5, within: 1m, for: 5m })"
            )
            return nil
        }
        guard valid, let after, let within, let period else { return nil }
        return Lockout(after: after, within: within, duration: period)
    }
}
