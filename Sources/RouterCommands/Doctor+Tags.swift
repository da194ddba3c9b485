import TagRules

extension Doctor {
    /// A warning naming the enrolled tags whose UID is a random ID (4 bytes from `08`): a new UID at every tap, so
    /// their entries never match; nothing when there are none.
    /// - Parameter tags: the tags file's entries.
    /// - Returns: no check, or one warning with each entry's `file:line:col`.
    static func randomIDChecks(_ tags: KnownTags) -> [DoctorCheck] {
        let warnings = tags.randomIDWarnings()
        guard !warnings.isEmpty else { return [] }
        let entries = warnings.map { "\($0.file):\($0.line):\($0.column)" }.joined(separator: ", ")
        return [
            DoctorCheck(
                name: "enrolled tags", status: .warning,
                detail: "\(warnings.count) enrolled tag\(warnings.count == 1 ? " has" : "s have") a random UID "
                    + "(4 bytes from 08, new at every tap) and will never match: \(entries)",
                fix: "admit such a tag by its SUN message with a `sun` rule, or enroll a tag with Random ID turned "
                    + "off and remove the entry (tagrouter tags remove NAME)")
        ]
    }
}
