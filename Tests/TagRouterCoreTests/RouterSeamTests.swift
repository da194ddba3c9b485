import Foundation
import NDEF
import PCSC
import SUNMessage
import Synchronization
import TagRules
import TagsFile
import TestSupport
import Testing

@testable import TagRouterCore

/// SUN counters kept in memory, for the router's counter seam; `failing` makes every use throw.
final class MemorySUNCounters: SUNCounterStore {
    struct Unusable: Error {}
    let counters = Mutex<[String: UInt32]>([:])
    let failing: Bool

    init(failing: Bool = false) {
        self.failing = failing
    }

    func acceptSUNCounter(keySetID: String, uid: String, counter: UInt32) throws -> Bool {
        if failing { throw Unusable() }
        return counters.withLock { counters in
            let key = keySetID + "/" + uid
            guard counters[key].map({ counter > $0 }) ?? true else { return false }
            counters[key] = counter
            return true
        }
    }
}

/// The router's seams, driven whole without pcscd: the SUN counter store it is given (not found by casting its
/// history) and the learn claim it watches in the rules folder.
@Suite struct RouterSeamTests {
    static let reader = "ACS ACR122U PICC Interface 00 00"
    static let metaKey = [UInt8](repeating: 0x11, count: 16)
    static let fileKey = [UInt8](repeating: 0x22, count: 16)
    static let environment = ["META": HexText.string(metaKey), "FILE": HexText.string(fileKey)]
    static let rules = """
        version: 1
        rules:
          - name: door
            match:
              domains: [door.example]
              sun: {piccData: p, mac: m, metaReadKey: "${META}", fileReadKey: "${FILE}"}
            run: [/bin/true]
        """

    /// The URL an NTAG 424 DNA with `counter` mirrors, its MAC over the stored URL up to the MAC's digits.
    static func sunURL(counter: UInt32) throws -> String {
        let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
        let picc = try SUNCrypto.piccData(uid: uid, counter: counter, padding: [1, 2, 3, 4, 5], metaReadKey: metaKey)
        let head = "https://door.example/open?p=" + HexText.string(picc, uppercase: true) + "&m="
        let mac = try SUNCrypto.mac(
            fileReadKey: fileKey, uid: uid, counter: counter, input: Array(head.utf8.dropFirst(8)))
        return head + HexText.string(mac, uppercase: true)
    }

    static func tap(_ embedded: EmbeddedRouter, _ uri: String, _ eventCount: UInt16) async throws -> TapOutcome {
        let tap = try #require(try embedded.present(reader, uri: uri, eventCount: eventCount))
        let outcome = await embedded.process(tap)
        _ = embedded.router.handle(.cardRemoved(reader: reader))
        embedded.advance(by: .seconds(60))
        return outcome
    }

    @Test("the injected counter store spends each verified message once: the same message again is a replay")
    func replayThroughTheInjectedStore() async throws {
        let counters = MemorySUNCounters()
        let embedded = try EmbeddedRouter(rules: Self.rules, environment: Self.environment, sunCounters: counters)
        _ = embedded.router.handle(.readerAdded(Self.reader))
        let first = try Self.sunURL(counter: 7)
        guard case .dispatched = try await Self.tap(embedded, first, 1) else {
            Issue.record("the first read of the message is not admitted")
            return
        }
        let again = try await Self.tap(embedded, first, 2)
        guard case .denied(_, let rule, let reason, _) = again else {
            Issue.record("a replayed message is not refused: \(again)")
            return
        }
        #expect(rule == "door")
        #expect(reason == .replay)
        guard case .dispatched = try await Self.tap(embedded, try Self.sunURL(counter: 8), 3) else {
            Issue.record("the next genuine message is not admitted")
            return
        }
        #expect(counters.counters.withLock { Array($0.values) } == [8])
    }

    @Test("a counter store that cannot be used refuses the tag: a door fails closed")
    func unusableStoreRefuses() async throws {
        let embedded = try EmbeddedRouter(
            rules: Self.rules, environment: Self.environment, sunCounters: MemorySUNCounters(failing: true))
        _ = embedded.router.handle(.readerAdded(Self.reader))
        let outcome = try await Self.tap(embedded, try Self.sunURL(counter: 1), 1)
        guard case .denied(_, _, let reason, _) = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(reason == .replay)
        #expect(!embedded.logs.with(message: "sun.counter_store_failed: the tag is refused").isEmpty)
    }

    @Test("a learn claim written just before a tap holds the reader at that tap, and its removal frees it at the next")
    func learnClaimIsSeenAtOnce() async throws {
        let embedded = try EmbeddedRouter(rules: Self.rules, environment: Self.environment)
        _ = embedded.router.handle(.readerAdded(Self.reader))
        let folder = (embedded.rulesFile as NSString).deletingLastPathComponent
        let uri = try Self.sunURL(counter: 1)
        guard case .dispatched = try await Self.tap(embedded, uri, 1) else {
            Issue.record("no claim yet: the tap is dispatched")
            return
        }
        let claim = LearnClaim(readers: [Self.reader], until: Date().addingTimeInterval(60))
        try JSONEncoder().encode(claim).write(to: URL(fileURLWithPath: LearnClaim.path(in: folder)))
        let held = try await Self.tap(embedded, uri, 2)
        guard case .heldByLearn = held else {
            Issue.record("a claim written before the tap does not hold the reader: \(held)")
            return
        }
        try FileManager.default.removeItem(atPath: LearnClaim.path(in: folder))
        guard case .dispatched = try await Self.tap(embedded, try Self.sunURL(counter: 2), 3) else {
            Issue.record("the removed claim still holds the reader")
            return
        }
    }

    @Test("the learn claim is looked at when the tag arrives, not when the router's read of it ends")
    func learnClaimAtArrival() async throws {
        let embedded = try EmbeddedRouter(rules: Self.rules, environment: Self.environment)
        _ = embedded.router.handle(.readerAdded(Self.reader))
        let path = LearnClaim.path(in: (embedded.rulesFile as NSString).deletingLastPathComponent)
        let claim = try JSONEncoder().encode(LearnClaim(readers: [Self.reader], until: Date().addingTimeInterval(60)))
        // One tap: the claim written before the tag arrives when `claimedAtArrival`, `toggle` done during the read.
        func tap(counter: UInt32, claimedAtArrival: Bool, toggle: () throws -> Void) async throws -> TapOutcome {
            if claimedAtArrival { try claim.write(to: URL(fileURLWithPath: path)) }
            embedded.cardReader.hold(Self.reader)
            let presented = try #require(
                try embedded.present(Self.reader, uri: try Self.sunURL(counter: counter), eventCount: 1))
            async let outcome = embedded.process(presented)
            try await embedded.wait { embedded.cardReader.isHolding(Self.reader) }
            try toggle()
            embedded.cardReader.release(Self.reader)
            let result = await outcome
            _ = embedded.router.handle(.cardRemoved(reader: Self.reader))
            embedded.advance(by: .seconds(60))
            return result
        }
        // `learn` read the tag, enrolled it and ended (its claim removed) before the router's read was done.
        let ended = try await tap(counter: 1, claimedAtArrival: true) {
            try FileManager.default.removeItem(atPath: path)
        }
        guard case .heldByLearn = ended else {
            Issue.record("a tag that arrived while learn held the reader was acted on: \(ended)")
            return
        }
        // `learn` started while the tag was already there: it ignores that tag, so the router does not.
        let started = try await tap(counter: 2, claimedAtArrival: false) {
            try claim.write(to: URL(fileURLWithPath: path))
        }
        guard case .dispatched = started else {
            Issue.record("a tag that arrived before learn's claim was held: \(started)")
            return
        }
    }
}
