import Foundation
import NDEF
import SUNMessage
import TestSupport
import Testing
import VirtualTag

/// A door that opens only for a genuine NTAG 424 DNA (docs/doors.md, "SUN: tags that prove themselves"), through
/// a real pcscd and vpcd with the real router: the emulated tag mirrors a fresh SUN message, its counter one
/// higher, on every read; a copied URL, a tampered MAC and a tag with other keys are each refused and recorded,
/// and the same read never opens twice. Every line a rule's command writes is `<what>|<reason>|<sun.uid>|<counter>`.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct SUNDoorTests {
    static let metaKey = [UInt8](repeating: 0x11, count: 16)
    static let fileKey = [UInt8](repeating: 0x22, count: 16)
    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]

    static func record(_ what: String) -> String {
        #"["/bin/sh", "-c", "printf '%s|%s|%s|%s\n' \"$1\" \"$2\" \"$3\" \"$4\" >> OUT", "sh", "\#(what)", "{denied.reason}", "{sun.uid}", "{sun.counter}"]"#
    }

    static let rules = """
        version: 1
        defaults: { cooldown: 0 }
        rules:
          - name: front-door
            match:
              domains: [door.example]
              sun: { piccData: p, mac: m, metaReadKey: "${DOOR_META_KEY}", fileReadKey: "${DOOR_FILE_KEY}" }
            run: \(record("open"))
            denied: { run: \(record("denied")) }

        """

    static let environment = [
        "DOOR_META_KEY": String(repeating: "11", count: 16), "DOOR_FILE_KEY": String(repeating: "22", count: 16),
    ]

    static func genuine(counter: UInt32, metaKey: [UInt8] = metaKey) throws -> Type4Card {
        try Type4Card.sun(
            uri: "https://door.example/open", uid: uid, metaReadKey: metaKey, fileReadKey: fileKey, counter: counter)
    }

    /// A SUN message of the tag's UID made with `metaKey` and a chosen padding (the MAC over nothing: the PICCData
    /// decides first), and its URL.
    static func message(counter: UInt32, padding: [UInt8], metaKey: [UInt8]) throws -> (
        uri: String, picc: [UInt8], mac: [UInt8]
    ) {
        let picc = try SUNCrypto.piccData(uid: uid, counter: counter, padding: padding, metaReadKey: metaKey)
        let mac = try SUNCrypto.mac(fileReadKey: fileKey, uid: uid, counter: counter, input: [])
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02X", $0) }.joined() }
        return ("https://door.example/open?p=\(hex(picc))&m=\(hex(mac))", picc, mac)
    }

    /// What a phone reading the genuine tag once would get: the NDEF message of one read.
    static func capturedMessage(counter: UInt32) throws -> [UInt8] {
        try genuine(counter: counter).messageAsRead()
    }

    @Test("a genuine tag opens; a copied URL, a tampered MAC and other keys are refused; no read opens twice")
    func genuineOnly() async throws {
        try await RouterHarness.with(rules: Self.rules, environment: Self.environment) { harness in
            try await harness.tap(try Self.genuine(counter: 0), expecting: "open||04DE5F1EACC040|1")
            // A phone read the tag once (counter 2) before the owner taps it again (counter 3).
            let captured = try Self.capturedMessage(counter: 1)
            try await harness.tap(try Self.genuine(counter: 2), expecting: "open||04DE5F1EACC040|3")
            // The captured URL written to another tag: its counter is not above 3.
            try await harness.tap(try Type4Card(message: captured), expecting: "denied|replay|04DE5F1EACC040|2")
            // The owner's tag still opens, and the same read presented again does not.
            let next = try Self.capturedMessage(counter: 3)
            try await harness.tap(try Type4Card(message: next), expecting: "open||04DE5F1EACC040|4")
            try await harness.tap(try Type4Card(message: next), expecting: "denied|replay|04DE5F1EACC040|4")
            // The MAC altered by one digit.
            var tampered = try Self.capturedMessage(counter: 10)
            let last = tampered.count - 1
            tampered[last] = tampered[last] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            try await harness.tap(try Type4Card(message: tampered), expecting: "denied|bad-mac||")
            // A tag made with other keys. Its message is fixed: decrypted with a wrong key, a PICCData starts with
            // the layout's tag (C7) once in 256 messages, which then fail on their MAC instead; this one does not.
            var otherKey = Self.metaKey
            otherKey[0] ^= 0xFF
            let foreign = try Self.message(counter: 21, padding: [0, 0, 0, 0, 0], metaKey: otherKey)
            try #require(
                SUNCrypto.verify(
                    piccData: foreign.picc, mac: foreign.mac, encData: nil, macInput: [], metaReadKey: Self.metaKey,
                    fileReadKey: Self.fileKey) == .wrongKey)
            try await harness.tap(
                try Type4Card(message: try NDEFMessage(records: [URIRecord(uri: foreign.uri).record]).encoded()),
                expecting: "denied|wrong-key||")

            let history = try await TagRouterBinary.run(
                ["history", "--denied", "--json", "--state-dir", harness.directory + "/state"], environment: [:])
            let report = try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any]
            let taps = try #require(report?["taps"] as? [[String: Any]])
            #expect(taps.compactMap { $0["reason"] as? String } == ["wrong-key", "bad-mac", "replay", "replay"])
            // `match` judges the captured URL against the counters the router accepted.
            let url = String(decoding: captured.dropFirst(5), as: UTF8.self)
            let match = try await TagRouterBinary.run(
                [
                    "match", url, "--rules", harness.rulesDirectory, "--state-dir", harness.directory + "/state",
                    "--explain",
                ],
                environment: Self.environment)
            #expect(match.status == 3, "\(match.standardOutput)\(match.standardError)")
            #expect(
                match.standardOutput.contains(
                    "refused (replay): sun: replay: counter 2 is not above 4, the highest accepted for UID 04DE5F1EACC040"
                ),
                "\(match.standardOutput)")
            // The keys appear nowhere in the log.
            #expect(!harness.router.log.contains(String(repeating: "11", count: 16)))
            #expect(!harness.router.log.contains(String(repeating: "22", count: 16)))
        }
    }

    @Test("tagrouter emulate --tag ntag424 with SUN keys: the counter goes on from one presentation to the next")
    func emulatedThroughTheCommandLine() async throws {
        try await RouterHarness.with(rules: Self.rules, environment: Self.environment) { harness in
            let port = harness.pcscd.vpcdPort(slot: 0)
            let output = try await TagRouterBinary.run(
                [
                    "emulate", "--tag", "ntag424", "--uri", "https://door.example/open", "--sun-meta-key",
                    String(repeating: "11", count: 16), "--sun-file-key", String(repeating: "22", count: 16),
                    "--sun-counter", "41", "--vpcd", "127.0.0.1:\(port)", "--repeat", "2", "--hold", "1500ms",
                ], environment: [:], timeout: .seconds(30))
            #expect(output.status == 0, "\(output.standardError)")
            try await harness.waitForDispatches(2)
            #expect(
                harness.dispatched == ["open||0452617A3C6980|42", "open||0452617A3C6980|43"], "\(harness.dispatched)")
        }
    }

    @Test("keys diversified per UID (AN10922): each tag opens with its own key, a tag with another's key does not")
    func diversifiedKeys() async throws {
        let rules = Self.rules.replacingOccurrences(
            of: #"fileReadKey: "${DOOR_FILE_KEY}" }"#,
            with:
                #"fileReadKey: "${DOOR_FILE_KEY}", diversify: { applicationID: "000001", systemIdentifier: "544147524F55544552" } }"#
        )
        let suffix: [UInt8] = [0x00, 0x00, 0x01] + Array("TAGROUTER".utf8)
        let other: [UInt8] = [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60]
        func card(uid: [UInt8], keyOf owner: [UInt8]) throws -> Type4Card {
            try Type4Card.sun(
                uri: "https://door.example/open", uid: uid, metaReadKey: Self.metaKey,
                fileReadKey: try SUNCrypto.diversified(masterKey: Self.fileKey, input: owner + suffix), counter: 0)
        }
        try await RouterHarness.with(rules: rules, environment: Self.environment) { harness in
            try await harness.tap(try card(uid: Self.uid, keyOf: Self.uid), expecting: "open||04DE5F1EACC040|1")
            try await harness.tap(try card(uid: other, keyOf: other), expecting: "open||04102030405060|1")
            try await harness.tap(try card(uid: other, keyOf: Self.uid), expecting: "denied|bad-mac||")
        }
    }
}
