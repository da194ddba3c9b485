import AASAPatterns

/// One `mime` entry: `type/subtype` or `type/*`, lower case.
struct MIMEPattern: Sendable, Hashable {
    var type: String
    /// nil for `type/*`.
    var subtype: String?

    func matches(_ mediaType: String) -> Bool {
        guard let subtype else { return mediaType.hasPrefix(type + "/") }
        return mediaType == type + "/" + subtype
    }
}
