import CryptoPrimitives
import Foundation
import NDEF
import SUNMessage

/// A rule's `sun:` condition (docs/doors.md, "SUN: tags that prove themselves"): which query items of the tag's
/// URI hold an NTAG 424 DNA's SUN message, and the keys to check it with (AES mode, NXP AN12196).
struct SUNCondition: Sendable {
    /// The item holding the encrypted PICCData; nil in plain mirroring.
    var piccItem: String?
    /// The items holding the UID and the counter in clear (plain mirroring).
    var uidItem: String?
    var counterItem: String?
    /// The item holding the SDMMAC.
    var macItem: String
    /// The item holding the encrypted file data, if any.
    var encItem: String?
    /// K_SDMMetaRead (encrypted PICCData only).
    var metaReadKey: [UInt8]?
    /// K_SDMFileRead, or the master key it is diversified from.
    var fileReadKey: [UInt8]
    /// `diversify`: the application ID and system identifier after the UID in NXP AN10922's input; nil: one
    /// file read key for every tag.
    var diversification: [UInt8]?

    /// The file read key of the tag with a UID: `fileReadKey`, or diversified from it.
    func fileReadKey(for uid: [UInt8]) -> [UInt8]? {
        guard let diversification else { return fileReadKey }
        return try? SUNCrypto.diversified(masterKey: fileReadKey, input: uid + diversification)
    }
    /// Names the key set in the counter store without showing the keys: the first 16 hex digits of SHA-256 over
    /// both keys.
    var keySetID: String

    /// What the MAC covers besides the UID and the counter (`macInput:`, the URL by default).
    var macInput: SUNMACInput = .url

    /// The query items whose values are the SUN message itself (PICCData, MAC, file data): shown as `<sun>`
    /// wherever the tag's URI is shown or sent, so that a copy of it cannot be presented again.
    var messageItems: [String] { [piccItem, macItem, encItem].compactMap { $0 } }

    /// Checks the message in a URI.
    /// - Parameters:
    ///   - uri: the tag's URI as read (expanded).
    ///   - prefixLength: how many UTF-8 bytes at its start the tag abbreviated with its URI record's identifier
    ///     code (``TagEvent/uriPrefixLength``): the URL the MAC covers starts after them. Unknown (nil): the
    ///     longest prefix a writer abbreviates, then none.
    /// - Returns: the verdict.
    func verify(_ uri: String, prefixLength: Int?) -> SUNCrypto.Verdict {
        if let prefixLength { return verify(uri, storedFrom: prefixLength) }
        let usual = URIPrefix.longestMatch(for: uri).length
        let verdict = verify(uri, storedFrom: usual)
        guard usual > 0, macInput == .url, case .badMAC = verdict else { return verdict }
        return verify(uri, storedFrom: 0)
    }

    private func verify(_ uri: String, storedFrom prefixLength: Int) -> SUNCrypto.Verdict {
        let items = Self.queryItems(uri)
        do {
            // Each item of the message exactly once: a repeated item would let the MAC cover one copy and a rule
            // read another.
            var values: [String: Substring] = [:]
            for name in [piccItem, uidItem, counterItem, macItem, encItem].compactMap({ $0 }) {
                let found = items.filter { $0.name == name }
                if found.count > 1 {
                    throw SUNFailure("the query item '\(name)' appears \(found.count) times")
                }
                values[name] = found.first?.value
            }
            func bytes(_ name: String) throws(SUNFailure) -> [UInt8] {
                guard let text = values[name] else { throw SUNFailure("the URI has no query item '\(name)'") }
                guard let bytes = HexText.bytes(text) else { throw SUNFailure("the query item '\(name)' is not hex") }
                return bytes
            }
            let mac = try bytes(macItem)
            let macInput = try macInputBytes(uri, prefixLength: prefixLength, values: values)
            if let piccItem, let metaReadKey {
                let piccData = try bytes(piccItem)
                let encData = try encItem.map { name throws(SUNFailure) in try bytes(name) }
                return SUNCrypto.verify(
                    piccData: piccData, mac: mac, encData: encData, macInput: macInput, metaReadKey: metaReadKey,
                    fileReadKeyFor: fileReadKey(for:))
            }
            guard let uidItem, let counterItem else { return .malformed("no PICCData and no UID") }
            let uid = try bytes(uidItem)
            let counterBytes = try bytes(counterItem)
            guard counterBytes.count == 3 else {
                return .malformed("the query item '\(counterItem)' is \(counterBytes.count) bytes, not 3")
            }
            let counter = counterBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard let key = fileReadKey(for: uid) else { return .badMAC }
            return SUNCrypto.verifyPlain(uid: uid, counter: counter, mac: mac, macInput: macInput, fileReadKey: key)
        } catch let failure as SUNFailure {
            return .malformed(failure.message)
        } catch {
            return .malformed("\(error)")
        }
    }

    /// The bytes the MAC covers: the stored URL up to the MAC (``SUNMACInput/url``), the text from the file data
    /// to the MAC (``SUNMACInput/fileData``), or nothing. With file data, the MAC must cover it: a message whose
    /// MAC comes before its file data is refused, or `{sun.file}` would be the tag's free choice.
    private func macInputBytes(_ uri: String, prefixLength: Int, values: [String: Substring]) throws(SUNFailure)
        -> [UInt8]
    {
        guard let macValue = values[macItem] else { throw SUNFailure("the URI has no query item '\(macItem)'") }
        let end = macValue.startIndex
        let start: String.Index
        switch macInput {
        case .none: return []
        case .url:
            guard let first = uri.utf8.index(uri.utf8.startIndex, offsetBy: prefixLength, limitedBy: end) else {
                throw SUNFailure("the URI is shorter than its abbreviated prefix")
            }
            start = first
        case .fileData:
            guard let encItem, let encValue = values[encItem] else {
                throw SUNFailure("the URI has no query item '\(encItem ?? "")'")
            }
            start = encValue.startIndex
        }
        if let encItem, let encValue = values[encItem], !(start <= encValue.startIndex && encValue.endIndex <= end) {
            throw SUNFailure("the MAC does not cover the file data: '\(encItem)' must come before '\(macItem)'")
        }
        guard start <= end else { throw SUNFailure("the MAC does not cover the file data") }
        return Array(uri.utf8[start..<end])
    }

    struct SUNFailure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The query items of a URI as written: names and values, the values as substrings of `uri` (the MAC input
    /// is a span of the text as the tag wrote it). The query only: it starts at the first `?` before any `#`, and
    /// ends at the `#` (a `?` inside the fragment starts nothing).
    static func queryItems(_ uri: String) -> [(name: Substring, value: Substring)] {
        let beforeFragment = uri[..<(uri.firstIndex(of: "#") ?? uri.endIndex)]
        guard let question = beforeFragment.firstIndex(of: "?") else { return [] }
        return beforeFragment[beforeFragment.index(after: question)...].split(separator: "&").map { item in
            guard let equals = item.firstIndex(of: "=") else { return (item, item[item.endIndex...]) }
            return (item[..<equals], item[item.index(after: equals)...])
        }
    }

    /// The key set's id: the first 16 hex digits of SHA-256 over the meta read key, the file read key and the
    /// diversification input.
    static func keySetID(metaReadKey: [UInt8]?, fileReadKey: [UInt8], diversification: [UInt8]? = nil) -> String {
        HexText.string(CryptoPrimitives.sha256((metaReadKey ?? []) + fileReadKey + (diversification ?? [])).prefix(8))
    }
}

/// A SUN message a rule verified (docs/doors.md, "SUN: tags that prove themselves"): `{sun.uid}`,
/// `{sun.counter}` and `{sun.file}`.
public struct VerifiedSUN: Sendable, Hashable {
    /// The UID the message names, uppercase hex.
    public var uid: String
    /// Its read counter.
    public var counter: UInt32
    /// Its decrypted file data, if any.
    public var fileData: [UInt8]?
    /// The key set that verified it (``SUNCondition/keySetID``): the counter store keeps one highest counter per
    /// key set and UID.
    public var keySetID: String
    /// The query items that held the message (PICCData, MAC, file data): ``redacted(_:)`` hides their values.
    public var messageItems: [String] = []

    /// The URI with the values of the message's query items replaced by `<sun>`: what the log, the history, the
    /// event documents and every placeholder show of a tag that presented a SUN message, so that nobody who reads
    /// them can present the message again (docs/doors.md, "What a SUN message proves").
    /// - Parameter uri: the tag's URI.
    /// - Returns: the URI with `p=<sun>`, `m=<sun>`, … in place of the message.
    public func redacted(_ uri: String) -> String {
        var shown = ""
        var position = uri.startIndex
        for item in SUNCondition.queryItems(uri) where messageItems.contains(String(item.name)) {
            shown += uri[position..<item.value.startIndex] + "<sun>"
            position = item.value.endIndex
        }
        return shown + uri[position...]
    }

    /// `{sun.file}`: the file data as text when it is UTF-8 (trailing NULs dropped), else as uppercase hex.
    public var fileText: String {
        guard let fileData else { return "" }
        var bytes = fileData[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        if let text = String(validating: bytes, as: UTF8.self), !text.utf8.contains(0) { return text }
        return HexText.string(fileData, uppercase: true)
    }
}
