import Foundation
import PCSC
import Synchronization
import TagRules
import Testing

@testable import TagRouterCore

/// Which taps are decisions on a door reader, and what each says (docs/operations.md, "The decision stream"), with
/// the whole router driven by scripted taps.
@Suite struct DecisionStreamUnitTests {
    static let door = "Door reader 00 00"
    static let desk = "Desk reader 01 00"
    static let fob: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]
    static let stranger: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
    static let rules = """
        version: 1
        defaults: { cooldown: 10s }
        rules:
          - name: front-door
            match: { reader: "Door*", domains: [door.example], uid: ["04A1B2C3D4E580"] }
            run: ["/bin/true"]
            denied: { run: ["/bin/false"] }
          - name: desk
            match: { reader: "Desk*", any: true }
            run: ["/bin/true"]
        """

    @Test func acceptedDeniedAndIgnoredOnTheDoorReaderAreDecisionsAndNothingElseIs() async throws {
        let published = Mutex<[DoorDecision]>([])
        let sink = DecisionSink(
            wants: { _ in true }, publish: { decision in published.withLock { $0.append(decision) } })
        let rules = try RuleSet.load(files: [("f.yaml", Self.rules)], environment: [:]).get()
        let embedded = try EmbeddedRouter(
            rules: Self.rules,
            decisions: DecisionSink(wants: { rules.isDoorReader($0) }, publish: sink.publish))
        var count: UInt16 = 0
        func tap(_ reader: String, _ uri: String, _ uid: [UInt8]) async throws {
            _ = embedded.router.handle(.cardRemoved(reader: reader))
            count += 1
            let tap = try #require(try embedded.present(reader, uri: uri, uid: uid, eventCount: count))
            _ = await embedded.process(tap)
        }
        try await tap(Self.desk, "https://door.example/open", Self.fob)
        try await tap(Self.door, "https://door.example/open", Self.fob)
        // Again within the cooldown: suppressed, not a decision.
        try await tap(Self.door, "https://door.example/open", Self.fob)
        try await tap(Self.door, "https://door.example/open", Self.stranger)
        try await tap(Self.door, "https://elsewhere.example/", Self.fob)
        let decisions = published.withLock { $0 }
        #expect(decisions.map(\.decision) == [.accepted, .denied, .ignored])
        #expect(decisions.allSatisfy { $0.reader == Self.door })
        #expect(decisions.map(\.rule) == ["front-door", "front-door", nil])
        #expect(decisions.map(\.reason) == [nil, "unknown-tag", nil])
        #expect(decisions.map(\.uid) == ["04A1B2C3D4E580", "04010203040506", "04A1B2C3D4E580"])
        #expect(Set(decisions.map(\.eventID)).count == 3)
        let payload = try JSONSerialization.jsonObject(with: Data(decisions[1].json())) as? [String: String]
        #expect(
            payload?.keys.sorted() == ["decision", "eventId", "reader", "reason", "rule", "time", "uid"])
        #expect(String(decoding: decisions[1].json(), as: UTF8.self).hasPrefix(#"{"decision":"denied","eventId":""#))
    }

    @Test func aDoorRuleWithoutAReaderConditionMakesEveryReaderADoorReader() throws {
        let withReader = try RuleSet.load(files: [("f.yaml", Self.rules)], environment: [:]).get()
        #expect(withReader.isDoorReader(Self.door) && !withReader.isDoorReader(Self.desk))
        let everywhere = try RuleSet.load(
            files: [("f.yaml", "version: 1\nrules:\n  - name: d\n    match: {tags: [staff]}\n    run: [/bin/true]\n")],
            environment: [:]
        ).get()
        #expect(everywhere.isDoorReader(Self.desk))
        let noDoor = try RuleSet.load(
            files: [("f.yaml", "version: 1\nrules:\n  - name: d\n    match: {any: true}\n    run: [/bin/true]\n")],
            environment: [:]
        ).get()
        #expect(!noDoor.isDoorReader(Self.desk))
    }
}
