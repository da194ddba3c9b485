import Foundation
import NDEF
import TagRules
import Testing

@testable import TagRouterCore

/// The tap's decision is values in, a value out (``Presentations/decide(_:serial:facts:)``): each case below sets
/// the facts a router would have gathered and checks the outcome, with no router, reader or clock.
@Suite struct TapDecisionTests {
    static let reader = "Door"
    static let rules: RuleSet = {
        let text = """
            version: 1
            rules:
              - name: log
                match: { any: true }
                continue: true
                run: [/bin/true]
              - name: door
                match: { domains: [door.example] }
                cooldown: 2s
                run: [/bin/true]
                denied: { run: [/bin/false] }
                lockout: { after: 3, within: 1m, for: 5m }
            """
        return try! RuleSet.load(files: [("f.yaml", text)], environment: [:]).get()
    }()

    /// The tag as the pipeline would have read and matched it.
    static func tag(uri: String, uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3]) -> ReadTag {
        let hex = uid.map { String(format: "%02X", $0) }.joined()
        let event = TagEvent(uid: hex, reader: reader, tech: "type2", uri: uri)
        let decision = rules.decide(event, at: Date())
        return ReadTag(
            tag: TagSummary(reader: reader, uid: hex, tech: "type2", uri: uri), event: decision.event,
            message: NDEFMessage(records: []), identity: .uid(uid), matches: decision.matches,
            refusal: decision.refusal, readTime: .zero)
    }

    /// A value with the door reader and one card presented on it; returns the card's serial.
    static func presented(_ presentations: inout Presentations, eventCount: UInt16 = 1) -> UInt64 {
        _ = presentations.readerAdded(reader: reader)
        guard case .read(let serial) = presentations.cardPresented(reader: reader, eventCount: eventCount) else {
            Issue.record("the card was not read")
            return 0
        }
        return serial
    }

    static func facts(
        _ sun: TapFacts.SUNCounter = .none, locked: Bool = false, learn: Bool = false,
        at now: ContinuousClock.Instant
    ) -> TapFacts {
        TapFacts(sunCounter: sun, lock: locked ? (rules.rules[1], 1) : nil, isHeldByLearn: learn, now: now)
    }

    /// The rule names a dispatch carries, and its refusal's rule and reason.
    static func dispatched(_ decision: TapDecision) -> (rules: [String], refusal: String?)? {
        guard case .dispatch(let tag, _) = decision else { return nil }
        return (tag.matches.map(\.rule.name), tag.refusal.map { "\($0.rule.name) \($0.reason.rawValue)" })
    }

    @Test("a matching tag dispatches its rules in order; the same tag again within the cooldown is suppressed")
    func dispatchThenCooldown() {
        var presentations = Presentations()
        let now = ContinuousClock.now
        let serial = Self.presented(&presentations)
        let first = presentations.decide(
            Self.tag(uri: "https://door.example/1"), serial: serial, facts: Self.facts(at: now))
        #expect(Self.dispatched(first)?.rules == ["log", "door"])
        presentations.cardRemoved(reader: Self.reader, now: now)
        let again = Self.presented(&presentations, eventCount: 2)
        let second = presentations.decide(
            Self.tag(uri: "https://door.example/1"), serial: again, facts: Self.facts(at: now + .seconds(1)))
        guard case .ended(.suppressed(_, let rules, let since)) = second else {
            Issue.record("expected suppressed, got \(second)")
            return
        }
        #expect(rules == ["log", "door"] && since == .seconds(1))
    }

    @Test("a replayed SUN message, a locked reader, learn's hold and no match each end or refuse as they should")
    func facts() {
        let now = ContinuousClock.now
        func decide(_ uri: String, _ facts: TapFacts) -> TapDecision {
            var presentations = Presentations()
            let serial = Self.presented(&presentations)
            return presentations.decide(Self.tag(uri: uri), serial: serial, facts: facts)
        }
        let locked = Self.dispatched(decide("https://door.example/1", Self.facts(locked: true, at: now)))
        #expect(locked?.rules == ["log"] && locked?.refusal == "door locked-out")
        guard case .ended(.heldByLearn) = decide("https://door.example/1", Self.facts(learn: true, at: now)) else {
            Issue.record("learn's hold")
            return
        }
        // `log` matches anything: a tag no door wants still dispatches it, and a lock still refuses it.
        #expect(Self.dispatched(decide("https://else.example/", Self.facts(at: now)))?.rules == ["log"])
        #expect(
            Self.dispatched(decide("https://else.example/", Self.facts(locked: true, at: now)))?.refusal
                == "door locked-out")
        // No SUN rule matched: a replayed counter changes nothing here (docs/doors.md covers the SUN rules).
        #expect(
            Self.dispatched(decide("https://door.example/1", Self.facts(.replayed, at: now)))?.rules == ["log", "door"])
    }

    @Test("a presentation already decided is superseded: one dispatch per presentation")
    func oneDispatchPerPresentation() {
        var presentations = Presentations()
        let now = ContinuousClock.now
        let serial = Self.presented(&presentations)
        let tag = Self.tag(uri: "https://door.example/1")
        #expect(Self.dispatched(presentations.decide(tag, serial: serial, facts: Self.facts(at: now))) != nil)
        guard case .ended(.superseded) = presentations.decide(tag, serial: serial, facts: Self.facts(at: now)) else {
            Issue.record("expected superseded")
            return
        }
    }
}
