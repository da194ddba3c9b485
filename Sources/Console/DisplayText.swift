import Foundation
import NDEF

/// Text a tag chose, made safe to show (docs/console.md, "Hostile tag data"): the templates escape it as HTML,
/// and this writes out every character that shows nothing or moves other text (bidirectional controls, control
/// characters) as `\u{…}`, so what a person reads is what the tag holds.
enum DisplayText {
    /// The text with invisible and reordering characters written out.
    static func visible(_ text: String?) -> String {
        text.map(PrintableText.visible) ?? ""
    }

    /// The link target for a URI: the URI itself only when its scheme is `http` or `https`, it has a host, and
    /// nothing in it needed writing out (so that the text shown, the whole URI with its full host, is the
    /// target); nil otherwise, and the URI is shown as text only.
    static func link(_ uri: String?) -> String? {
        guard let uri, PrintableText.visible(uri) == uri, !uri.contains(where: \.isWhitespace),
            let components = URLComponents(string: uri),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { return nil }
        return uri
    }
}
