/// The URI identifier codes of the NFC Forum URI RTD: code `n` abbreviates `URIPrefix.all[n]`.
public enum URIPrefix {
    /// The 36 defined prefixes, indexed by identifier code (0x00 to 0x23).
    public static let all: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
        "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://", "dav://",
        "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:", "btspp://",
        "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://", "file://", "urn:epc:id:", "urn:epc:tag:",
        "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
    ]

    /// The prefixes as UTF-8 bytes, indexed by identifier code.
    static let bytes: [[UInt8]] = all.map { Array($0.utf8) }

    /// The prefix an identifier code stands for.
    /// - Parameter code: the first payload byte of a URI record.
    /// - Returns: the prefix, or `nil` for a reserved code (above 0x23).
    public static func prefix(forCode code: UInt8) -> String? {
        Int(code) < all.count ? all[Int(code)] : nil
    }

    /// The code whose prefix is the longest one starting `uri`, and the length of that prefix in UTF-8 bytes.
    /// - Parameter uri: the full URI.
    /// - Returns: the identifier code (0 when no prefix matches) and the prefix length in bytes.
    public static func longestMatch(for uri: String) -> (code: UInt8, length: Int) {
        let utf8 = Array(uri.utf8)
        var best: (code: UInt8, length: Int) = (0, 0)
        for (code, prefix) in bytes.enumerated() where prefix.count > best.length && utf8.starts(with: prefix) {
            best = (UInt8(code), prefix.count)
        }
        return best
    }
}
