import Crypto
import Foundation
import NDEF
import SUNMessage

/// A rule's `sun:` condition (docs/rules.md, "SUN: tags that prove themselves"): which query items of the tag's
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

    /// Checks the message in a URI.
    /// - Parameter uri: the tag's URI as read.
    /// - Returns: the verdict.
    func verify(_ uri: String) -> SUNCrypto.Verdict {
        let items = Self.queryItems(uri)
        func value(_ name: String) -> Substring? { items.first { $0.name == name }?.value }
        func bytes(_ name: String) -> Result<[UInt8], SUNFailure> {
            guard let text = value(name) else { return .failure(SUNFailure("the URI has no query item '\(name)'")) }
            guard let bytes = HexText.bytes(text) else {
                return .failure(SUNFailure("the query item '\(name)' is not hex"))
            }
            return .success(bytes)
        }
        do {
            let mac = try bytes(macItem).get()
            if let piccItem, let metaReadKey {
                let piccData = try bytes(piccItem).get()
                var encData: [UInt8]?
                var macInput: [UInt8] = []
                if let encItem {
                    encData = try bytes(encItem).get()
                    // AN12196's layout: the MAC covers the text from the file data to the MAC itself.
                    if let start = value(encItem)?.startIndex, let end = value(macItem)?.startIndex, start < end {
                        macInput = Array(uri[start..<end].utf8)
                    }
                }
                return SUNCrypto.verify(
                    piccData: piccData, mac: mac, encData: encData, macInput: macInput, metaReadKey: metaReadKey,
                    fileReadKeyFor: fileReadKey(for:))
            }
            guard let uidItem, let counterItem else { return .malformed("no PICCData and no UID") }
            let uid = try bytes(uidItem).get()
            let counterBytes = try bytes(counterItem).get()
            guard counterBytes.count == 3 else {
                return .malformed("the query item '\(counterItem)' is \(counterBytes.count) bytes, not 3")
            }
            let counter = counterBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard let key = fileReadKey(for: uid) else { return .badMAC }
            return SUNCrypto.verifyPlain(uid: uid, counter: counter, mac: mac, macInput: [], fileReadKey: key)
        } catch {
            return .malformed(error.message)
        }
    }

    struct SUNFailure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The query items of a URI as written: names and values, the values as substrings of `uri` (the MAC input
    /// is a span of the text as the tag wrote it).
    static func queryItems(_ uri: String) -> [(name: Substring, value: Substring)] {
        guard let question = uri.firstIndex(of: "?") else { return [] }
        let end = uri[question...].firstIndex(of: "#") ?? uri.endIndex
        return uri[uri.index(after: question)..<end].split(separator: "&").map { item in
            guard let equals = item.firstIndex(of: "=") else { return (item, item[item.endIndex...]) }
            return (item[..<equals], item[item.index(after: equals)...])
        }
    }

    /// The key set's id: the first 16 hex digits of SHA-256 over the meta read key, the file read key and the
    /// diversification input.
    static func keySetID(metaReadKey: [UInt8]?, fileReadKey: [UInt8], diversification: [UInt8]? = nil) -> String {
        HexText.string(Array(SHA256.hash(data: (metaReadKey ?? []) + fileReadKey + (diversification ?? []))).prefix(8))
    }
}

/// A SUN message a rule verified (docs/rules.md, "SUN: tags that prove themselves"): `{sun.uid}`,
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

    /// `{sun.file}`: the file data as text when it is UTF-8 (trailing NULs dropped), else as uppercase hex.
    public var fileText: String {
        guard let fileData else { return "" }
        var bytes = fileData[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        if let text = String(validating: bytes, as: UTF8.self), !text.utf8.contains(0) { return text }
        return HexText.string(fileData, uppercase: true)
    }
}
