extension Rule {
    /// Whether an `open` action of this rule may open `uri` (docs/rules.md, "What a tag may choose"): an `http`
    /// or `https` URI, one whose scheme the rule's match allows (``allowedSchemes``), or one whose scheme the
    /// action writes literally; never another scheme a tag carries (`file:`, `smb:`, `vscode:`…).
    /// - Parameters:
    ///   - uri: the rendered URI.
    ///   - template: the `open` action's template.
    /// - Returns: whether the opener may be given `uri`.
    public func mayOpen(_ uri: String, from template: Template) -> Bool {
        guard let scheme = Self.scheme(of: uri) else { return false }
        if scheme == "http" || scheme == "https" || allowedSchemes?.contains(scheme) == true { return true }
        return Self.scheme(of: template.staticPrefix) == scheme
    }

    /// The lower-cased scheme of a URI, if it starts with one (RFC 3986: a letter, then letters, digits, `+-.`).
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }
}
