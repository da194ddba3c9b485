import Foundation

/// A URI split per RFC 3986 without copying its parts: the scheme and host are normalized (lower case, IDN hosts
/// in punycode), the path, query and fragment are ranges into ``bytes``, the URI as written with non-ASCII
/// characters percent-encoded as UTF-8.
struct ParsedURI: Sendable {
    /// The URI bytes, non-ASCII percent-encoded, escapes with upper-case hex.
    let bytes: [UInt8]
    /// The scheme, lower-cased.
    let scheme: String
    /// The host, lower-cased, in ASCII (punycode for IDN); nil without an authority.
    let host: String?
    /// The explicit port, if any.
    let port: Int?
    /// The path (possibly empty).
    let path: Range<Int>
    /// The query without `?`, if there is one.
    let query: Range<Int>?
    /// The fragment without `#`, if there is one.
    let fragment: Range<Int>?

    /// The port that applies: the explicit one, or the scheme's default for http and https.
    var effectivePort: Int? {
        port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }

    /// Parses `text`; nil when it is not a valid RFC 3986 URI even after percent-encoding non-ASCII characters.
    init?(_ text: String) {
        let bytes = URIText.normalizedEncoding(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, URIText.isAlpha(bytes[0]) else {
            return nil
        }
        for byte in bytes[..<colon]
        where
            !(URIText.isAlpha(byte) || URIText.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "."))
        {
            return nil
        }
        self.bytes = bytes
        self.scheme = URIText.asciiLowercased(bytes[..<colon])
        var index = colon + 1
        let end = bytes.count
        var host: String?
        var port: Int?
        if end - index >= 2, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") {
            let start = index + 2
            let authorityEnd =
                bytes[start...].firstIndex {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                } ?? end
            guard let authority = Self.authority(bytes[start..<authorityEnd]) else { return nil }
            host = authority.host
            port = authority.port
            index = authorityEnd
        }
        self.host = host
        self.port = port
        let pathEnd = bytes[index...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? end
        guard Self.isValid(bytes[index..<pathEnd], allowsQuestionMark: false) else { return nil }
        self.path = index..<pathEnd
        index = pathEnd
        if index < end, bytes[index] == UInt8(ascii: "?") {
            let queryEnd = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? end
            guard Self.isValid(bytes[(index + 1)..<queryEnd], allowsQuestionMark: true) else { return nil }
            self.query = (index + 1)..<queryEnd
            index = queryEnd
        } else {
            self.query = nil
        }
        if index < end {
            guard Self.isValid(bytes[(index + 1)..<end], allowsQuestionMark: true) else { return nil }
            self.fragment = (index + 1)..<end
        } else {
            self.fragment = nil
        }
    }

    /// Whether `part` is made of `pchar`, `/` (and `?` when allowed) and well-formed `%XX` escapes.
    private static func isValid(_ part: ArraySlice<UInt8>, allowsQuestionMark: Bool) -> Bool {
        var index = part.startIndex
        while index < part.endIndex {
            let byte = part[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < part.endIndex,
                    URIText.hexValue(part[index + 1]) != nil, URIText.hexValue(part[index + 2]) != nil
                else { return false }
                index += 3
                continue
            }
            guard
                URIText.isPathCharacter(byte) || byte == UInt8(ascii: "/")
                    || (allowsQuestionMark && byte == UInt8(ascii: "?"))
            else { return false }
            index += 1
        }
        return true
    }

    /// Splits `[userinfo@]host[:port]`, normalizing the host.
    private static func authority(_ part: ArraySlice<UInt8>) -> (host: String, port: Int?)? {
        var hostPart = part
        if let at = part.lastIndex(of: UInt8(ascii: "@")) {
            guard isValid(part[..<at], allowsQuestionMark: false), !part[..<at].contains(UInt8(ascii: "/")) else {
                return nil
            }
            hostPart = part[(at + 1)...]
        }
        var portText: ArraySlice<UInt8> = []
        if hostPart.first == UInt8(ascii: "[") {
            guard let close = hostPart.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let rest = hostPart[(close + 1)...]
            if let first = rest.first {
                guard first == UInt8(ascii: ":") else { return nil }
                portText = rest.dropFirst()
            }
            hostPart = hostPart[...close]
        } else if let colon = hostPart.lastIndex(of: UInt8(ascii: ":")) {
            portText = hostPart[(colon + 1)...]
            hostPart = hostPart[..<colon]
        }
        var port: Int?
        if !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy(URIText.isDigit),
                let value = Int(String(decoding: portText, as: UTF8.self)), value <= 65535
            else { return nil }
            port = value
        }
        guard let host = normalizedHost(hostPart) else { return nil }
        return (host, port)
    }

    /// The host in lower-case ASCII; percent-encoded (non-ASCII) hosts go through IDNA to punycode.
    static func normalizedHost<C: Collection<UInt8>>(_ raw: C) -> String? {
        if raw.first == UInt8(ascii: "[") {
            return String(decoding: raw, as: UTF8.self).lowercased()
        }
        guard raw.contains(UInt8(ascii: "%")) else {
            guard raw.allSatisfy({ URIText.isPathCharacter($0) && $0 != UInt8(ascii: ":") }) else { return nil }
            return URIText.asciiLowercased(raw)
        }
        let decoded = URIText.percentDecoded(raw)
        guard let text = String(validating: decoded, as: UTF8.self) else { return nil }
        return idnaHost(text)
    }

    /// The ASCII (punycode) form of a Unicode host name, through Foundation's IDNA; nil if it has none.
    static func idnaHost(_ text: String) -> String? {
        var components = URLComponents()
        components.scheme = "https"
        components.host = text
        guard let encoded = components.encodedHost, !encoded.contains("%") else { return nil }
        return encoded.lowercased()
    }
}
