/// MQTT topic rules shared by the parser, the renderer and the publisher (docs/rules.md, "`mqtt`: publications").
public enum MQTTTopic {
    /// A reader's topic level: its name lower-cased, every run of characters outside `a-z0-9` replaced by one
    /// `_`, trimmed of `_` (`ACS ACR122U PICC Interface 00 00` → `acs_acr122u_picc_interface_00_00`); `reader`
    /// when nothing is left.
    /// - Parameter name: the PC/SC reader name.
    /// - Returns: the reader id.
    public static func readerID(_ name: String) -> String {
        var id = ""
        var pendingSeparator = false
        for scalar in name.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                if pendingSeparator && !id.isEmpty { id += "_" }
                pendingSeparator = false
                id.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        return id.isEmpty ? "reader" : id
    }

    /// The default topic of a reader's taps: `<prefix>/<reader-id>/tag`.
    /// - Parameters:
    ///   - prefix: the broker's topic prefix.
    ///   - reader: the PC/SC reader name.
    /// - Returns: the topic.
    public static func tagTopic(prefix: String, reader: String) -> String {
        "\(prefix)/\(readerID(reader))/tag"
    }

    /// A placeholder value made safe for a topic: `/`, `+`, `#`, NUL and every other control character become
    /// `_`, so a value never adds a level or a wildcard; so does a `$` that would start a topic level, so a
    /// value never names a broker's `$SYS`-style topic.
    /// - Parameters:
    ///   - value: the value from the tag.
    ///   - startsLevel: whether the value comes first in its topic level (at the start of the topic or after a
    ///     `/`).
    /// - Returns: the value for the topic.
    public static func level(_ value: String, startsLevel: Bool = false) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            let replaced =
                "/+#".unicodeScalars.contains(scalar) || scalar.properties.generalCategory == .control
                || (scalar == "$" && startsLevel && scalars.isEmpty)
            scalars.append(replaced ? "_" : scalar)
        }
        return String(scalars)
    }

    /// Why a topic name is invalid (a wildcard, NUL, empty, or starting with an empty level), or nil.
    /// - Parameter topic: the topic (or the fixed text of a topic template).
    /// - Returns: the problem in words, or nil.
    public static func problem(in topic: String) -> String? {
        if topic.isEmpty { return "is empty" }
        if topic.contains("+") || topic.contains("#") { return "contains a wildcard ('+' or '#')" }
        if topic.unicodeScalars.contains("\0") { return "contains a NUL character" }
        if topic.hasPrefix("/") { return "starts with an empty level ('/')" }
        if topic.utf8.count > 65_535 { return "is longer than 65,535 bytes" }
        return nil
    }
}
