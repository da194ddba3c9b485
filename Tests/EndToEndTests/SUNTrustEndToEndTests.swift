import Foundation
import HTTPTestSupport
import NDEF
import SUNMessage
import TestSupport
import Testing
import VirtualTag

/// What a verified tag proves (docs/doors.md, "What a SUN message proves"), through a real pcscd and vpcd, the
/// real router, a real notification server (dunst under Xvfb) and a real webhook receiver: the MAC covers the URL,
/// a refusal trusts nothing, a genuine message is spent whatever comes of it and never leaves the router, and a
/// Random-ID tag is the UID it proves. Every line a rule's command writes is `<what>|<reason>|<sun.uid>|<counter>`.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct SUNTrustEndToEndTests {
    static let metaKey = [UInt8](repeating: 0x11, count: 16)
    static let fileKey = [UInt8](repeating: 0x22, count: 16)
    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
    static let environment = [
        "DOOR_META_KEY": String(repeating: "11", count: 16), "DOOR_FILE_KEY": String(repeating: "22", count: 16),
    ]
    static let sun = #"{ piccData: p, mac: m, metaReadKey: "${DOOR_META_KEY}", fileReadKey: "${DOOR_FILE_KEY}""#

    static func record(_ what: String) -> String {
        #"["/bin/sh", "-c", "printf '%s|%s|%s|%s\n' \"$1\" \"$2\" \"$3\" \"$4\" >> OUT", "sh", "\#(what)", "{denied.reason}", "{sun.uid}", "{sun.counter}"]"#
    }

    static func genuine(
        uri: String = "https://door.example/open", counter: UInt32, macInput: SUNMACInput = .url,
        randomID: Bool = false
    ) throws -> Type4Card {
        try Type4Card.sun(
            uri: uri, uid: uid, metaReadKey: metaKey, fileReadKey: fileKey, counter: counter, macInput: macInput,
            randomID: randomID)
    }

    /// The URI of a captured message.
    static func uri(of message: [UInt8]) throws -> String {
        try #require(try NDEFMessage(decoding: message).tagURI)
    }

    /// A tag holding `uri` stored whole (identifier code 0x00), as ``Type4Card/sun(uri:uid:metaReadKey:fileReadKey:counter:fileData:macInput:randomID:)``
    /// stores it: only the text changes, never its encoding.
    static func tag(holding uri: String) throws -> Type4Card {
        let record = NDEFRecord(tnf: .wellKnown, type: Array("U".utf8), payload: [0x00] + Array(uri.utf8))
        return try Type4Card(message: try NDEFMessage(records: [record]).encoded())
    }

    /// A router with `rules` (and the SUN keys) on a private desktop session with dunst, its opener a stub that
    /// records what it is given (``ConfirmationTests/withOpener(_:)``).
    static func withDesktopRouter(
        rules: String,
        _ body: (_ desktop: DesktopSession, _ harness: RouterHarness, _ opened: @escaping () -> [String]) async throws
            -> Void
    ) async throws {
        try await ConfirmationTests.withOpener { path, opened in
            try await DesktopSession.with(notificationServer: true) { desktop in
                var environment = desktop.environment.merging(Self.environment) { _, new in new }
                environment["PATH"] = path
                try await RouterHarness.with(rules: rules, environment: environment) { harness in
                    try await body(desktop, harness, opened)
                }
            }
        }
    }

    @Test(
        "the MAC covers the URL: moved to another path or given another item it is refused; an empty MAC input only under macInput: none, which asks before opening"
    )
    func macCoversTheURL() async throws {
        let rules = """
            version: 1
            defaults: { cooldown: 0 }
            rules:
              - name: front-door
                match:
                  domains: [door.example]
                  sun: \(Self.sun) }
                run: \(Self.record("open"))
                denied: { run: \(Self.record("denied")) }
              - name: boltcard
                match:
                  domains: [bolt.example]
                  sun: \(Self.sun), macInput: none }
                run: \(Self.record("bolt"))
                open: "{uri}"

            """
        try await Self.withDesktopRouter(rules: rules) { desktop, harness, opened in
            try await harness.tap(try Self.genuine(counter: 0), expecting: "open||04DE5F1EACC040|1")
            let genuine = try Self.uri(of: try Self.genuine(counter: 4).messageAsRead())
            let items = genuine[genuine.range(of: "?p=")!.upperBound...]
            for altered in [
                "https://door.example/attacker/chosen?p=" + items,
                "https://door.example/open?door=vault&p=" + items,
            ] {
                try await harness.tap(try Self.tag(holding: altered), expecting: "denied|bad-mac||")
            }
            // The untouched copy still opens: its counter, 5, was never seen.
            try await harness.tap(try Self.tag(holding: genuine), expecting: "open||04DE5F1EACC040|5")
            // A tag whose MAC covers nothing: refused where the URL must be proved ...
            try await harness.tap(
                try Self.genuine(counter: 10, macInput: .none), expecting: "denied|bad-mac||")
            // ... verified under macInput: none, whose open asks the desktop first.
            let bolt = try harness.present(
                try Self.genuine(uri: "https://bolt.example/pay", counter: 20, macInput: .none))
            try await harness.waitForDispatch(containing: "bolt||04DE5F1EACC040|21")
            try await ConfirmationTests.waitForNotifications(1, desktop, harness)
            _ = try await desktop.dunstctl(["close"])
            try await harness.router.waitForLog("not confirmed")
            #expect(opened().isEmpty)
            try await harness.remove(bolt, slot: 0)
        }
    }

    @Test("a genuine message a rule refused is spent and never shown: replayed later it is refused; denied: open asks")
    func refusedMessageIsSpentAndHidden() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(200) }
        let tagsFile = """
            version: 1
            tags:
              - { name: front, uid: "04DE5F1EACC040", groups: [staff], disabled: true }

            """
        let rules = """
            version: 1
            defaults: { cooldown: 0 }
            rules:
              - name: front-door
                match:
                  domains: [door.example]
                  tags: [staff]
                  sun: \(Self.sun) }
                run: \(Self.record("open"))
                denied:
                  run: \(Self.record("denied"))
                  webhook: { url: "http://127.0.0.1:\(server.port)/door" }
                  open: "{uri}"

            """
        try await Self.withDesktopRouter(rules: rules) { desktop, harness, opened in
            let tags = harness.rulesDirectory + "/tags.yaml"
            try tagsFile.write(toFile: tags, atomically: true, encoding: .utf8)
            try await harness.router.waitForLog("rules.reloaded")
            // A genuine read of the disabled fob: refused, and the refusal's open asks (and is dismissed).
            let message = try Self.genuine(counter: 6).messageAsRead()
            let read = try harness.present(try Type4Card(message: message))
            try await harness.waitForDispatch(containing: "denied|disabled|04DE5F1EACC040|7")
            try await ConfirmationTests.waitForNotifications(1, desktop, harness)
            _ = try await desktop.dunstctl(["close"])
            try await harness.router.waitForLog("not confirmed")
            #expect(opened().isEmpty)
            try await harness.remove(read, slot: 0)
            let requests = try await server.waitForRequests(1)

            // The fob enabled again: the message the router saw refused is worth nothing now.
            let reloads = harness.router.lines(containing: "rules.reloaded").count
            try tagsFile.replacingOccurrences(of: ", disabled: true", with: "")
                .write(toFile: tags, atomically: true, encoding: .utf8)
            try await harness.router.waitForLog("rules.reloaded", count: reloads + 1)
            let replay = try harness.present(try Type4Card(message: message))
            try await harness.waitForDispatch(containing: "denied|replay|04DE5F1EACC040|7")
            try await ConfirmationTests.waitForNotifications(1, desktop, harness)
            _ = try await desktop.dunstctl(["close"])
            try await harness.remove(replay, slot: 0)
            try await harness.tap(try Self.genuine(counter: 7), expecting: "open||04DE5F1EACC040|8")

            // The message itself is nowhere: not in the log, the history or the webhook's body.
            let uri = try Self.uri(of: message)
            let mac = String(uri.suffix(16))
            let picc = String(uri[uri.range(of: "p=")!.upperBound...].prefix(32))
            let body = String(decoding: requests[0].body, as: UTF8.self)
            #expect(body.contains("https://door.example/open?p=<sun>&m=<sun>"), "\(body)")
            let history = try await TagRouterBinary.run(
                ["history", "--json", "--state-dir", harness.directory + "/state"], environment: [:])
            #expect(history.standardOutput.contains("p=<sun>"), "\(history.standardOutput)")
            for shown in [harness.router.log, history.standardOutput, body] {
                #expect(!shown.contains(mac) && !shown.contains(picc))
            }
        }
        try await server.stop()
    }

    @Test("a Random-ID tag is the UID it proves: its second tap within the cooldown is suppressed")
    func randomIDCooldown() async throws {
        let rules = """
            version: 1
            defaults: { cooldown: 1h }
            rules:
              - name: front-door
                match:
                  domains: [door.example]
                  sun: \(Self.sun) }
                run: \(Self.record("open"))

            """
        try await RouterHarness.with(rules: rules, environment: Self.environment) { harness in
            var card = try Self.genuine(counter: 0, randomID: true)
            try await harness.tap(card, expecting: "open||04DE5F1EACC040|1")
            // The same tag again (a new random UID, a new message): in its cooldown.
            card = try Self.genuine(counter: 1, randomID: true)
            let again = try harness.present(card)
            try await harness.router.waitForLog("tap.suppressed")
            try await harness.remove(again, slot: 0)
            #expect(harness.dispatched == ["open||04DE5F1EACC040|1"])
        }
    }
}
