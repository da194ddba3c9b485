import Foundation

/// A URI split per RFC 3986 without copying its parts: the scheme and host are normalized (lower case, IDN hosts
/// in punycode), the path, query and fragment are byte ranges into ``storage``, the URI as written with non-ASCII
/// characters percent-encoded as UTF-8. A plain ASCII URI is not copied at all.
public struct ParsedURI: Sendable {
    /// The URI, non-ASCII percent-encoded, escapes with upper-case hex; contiguous UTF-8.
    let storage: String
    /// The scheme, lower-cased.
    public let scheme: String
    /// The host, lower-cased, in ASCII (punycode for IDN); nil without an authority. A slice of ``storage`` when it
    /// was written in lower case.
    public let host: Substring?
    /// The explicit port, if any.
    public let port: Int?
    /// The path (possibly empty).
    public let path: Range<Int>
    /// The query without `?`, if there is one.
    public let query: Range<Int>?
    /// The fragment without `#`, if there is one.
    public let fragment: Range<Int>?

    /// The port that applies: the explicit one, or the scheme's default for http and https.
    public var effectivePort: Int? {
        port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }

    /// Calls `body` with the bytes of ``storage``.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        // Contiguous by construction (see init), so this never falls back.
        storage.utf8.withContiguousStorageIfAvailable(body) ?? Array(storage.utf8).withUnsafeBufferPointer(body)
    }

    /// The text of a byte range of ``storage``.
    public func text(_ range: Range<Int>) -> String {
        withBytes { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// What parsing finds, as byte offsets.
    private struct Parts {
        var schemeEnd: Int
        var host: Host?
        var port: Int?
        var path: Range<Int>
        var query: Range<Int>?
        var fragment: Range<Int>?
    }

    /// A host as found: a range of lower-case ASCII in the URI, or a normalized copy.
    private enum Host {
        case range(Range<Int>)
        case normalized(String)
    }

    /// Parses `text`; nil when it is not a valid RFC 3986 URI even after percent-encoding non-ASCII characters.
    public init?(_ text: String) {
        var storage = text
        storage.makeContiguousUTF8()
        if let normalized = storage.utf8.withContiguousStorageIfAvailable({ URIText.normalizedIfNeeded($0) }) ?? nil {
            storage = String(decoding: normalized, as: UTF8.self)
        }
        guard let parts = storage.utf8.withContiguousStorageIfAvailable({ Self.parse($0) }) ?? nil else { return nil }
        self.storage = storage
        self.scheme =
            storage.utf8.withContiguousStorageIfAvailable {
                URIText.asciiLowercased(UnsafeBufferPointer(rebasing: $0[..<parts.schemeEnd]))
            } ?? ""
        switch parts.host {
        case nil:
            self.host = nil
        case .range(let range):
            let utf8 = storage.utf8
            let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            let end = utf8.index(start, offsetBy: range.count)
            self.host = Substring(utf8[start..<end])
        case .normalized(let text):
            self.host = Substring(text)
        }
        self.port = parts.port
        self.path = parts.path
        self.query = parts.query
        self.fragment = parts.fragment
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Parts? {
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
        var parts = Parts(schemeEnd: colon, path: 0..<0)
        var index = colon + 1
        let end = bytes.count
        if end - index >= 2, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") {
            let start = index + 2
            let authorityEnd =
                bytes[start...].firstIndex {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                } ?? end
            guard let authority = Self.authority(bytes[start..<authorityEnd]) else { return nil }
            parts.host = authority.host
            parts.port = authority.port
            index = authorityEnd
        }
        let pathEnd = bytes[index...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? end
        guard Self.isValid(bytes[index..<pathEnd], allowsQuestionMark: false) else { return nil }
        parts.path = index..<pathEnd
        index = pathEnd
        if index < end, bytes[index] == UInt8(ascii: "?") {
            let queryEnd = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? end
            guard Self.isValid(bytes[(index + 1)..<queryEnd], allowsQuestionMark: true) else { return nil }
            parts.query = (index + 1)..<queryEnd
            index = queryEnd
        }
        if index < end {
            guard Self.isValid(bytes[(index + 1)..<end], allowsQuestionMark: true) else { return nil }
            parts.fragment = (index + 1)..<end
        }
        return parts
    }

    /// Whether `part` is made of `pchar`, `/` (and `?` when allowed) and well-formed `%XX` escapes.
    private static func isValid(_ part: Slice<UnsafeBufferPointer<UInt8>>, allowsQuestionMark: Bool) -> Bool {
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
    private static func authority(_ part: Slice<UnsafeBufferPointer<UInt8>>) -> (host: Host, port: Int?)? {
        var hostPart = part
        if let at = part.lastIndex(of: UInt8(ascii: "@")) {
            guard isValid(part[..<at], allowsQuestionMark: false), !part[..<at].contains(UInt8(ascii: "/")) else {
                return nil
            }
            hostPart = part[(at + 1)...]
        }
        var portText = part[part.endIndex...]
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
        let isLowerCaseName =
            hostPart.first != UInt8(ascii: "[")
            && hostPart.allSatisfy {
                URIText.isPathCharacter($0) && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "%")
                    && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
            }
        if isLowerCaseName { return (.range(hostPart.startIndex..<hostPart.endIndex), port) }
        guard let host = normalizedHost(hostPart) else { return nil }
        return (.normalized(host), port)
    }

    /// The host in lower-case ASCII; percent-encoded (non-ASCII) hosts go through IDNA to punycode.
    public static func normalizedHost<C: Collection<UInt8>>(_ raw: C) -> String? {
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
    public static func idnaHost(_ text: String) -> String? {
        var components = URLComponents()
        components.scheme = "https"
        components.host = text
        guard let encoded = components.encodedHost, !encoded.contains("%") else { return nil }
        return encoded.lowercased()
    }
}
