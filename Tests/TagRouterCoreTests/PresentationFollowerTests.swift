import Foundation
import NDEF
import Synchronization
import TagRules
import Testing

@testable import TagRouterCore

/// ``PresentationFollower`` on a virtual clock: 1,000 presentations with random durations produce exactly the
/// events the durations imply (issue 30), computed here by a model of docs/rules.md, "Tags that stay on the
/// reader", written independently of the follower.
@Suite struct PresentationFollowerTests {
    /// A clock that moves only when told, firing the timers set on it in deadline order.
    final class VirtualClock: Sendable {
        private struct State {
            var now: ContinuousClock.Instant
            var timers: [(deadline: ContinuousClock.Instant, id: Int, fire: @Sendable () -> Void)] = []
            var nextID = 0
        }

        private let state = Mutex(State(now: ContinuousClock.now))

        var now: ContinuousClock.Instant { state.withLock { $0.now } }

        func schedule(
            _ deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void
        ) -> @Sendable () -> Void {
            let id = state.withLock { state in
                state.nextID += 1
                state.timers.append((deadline, state.nextID, fire))
                return state.nextID
            }
            return { [self] in state.withLock { $0.timers.removeAll { $0.id == id } } }
        }

        /// Moves to `instant`, firing every timer due on the way at its own deadline.
        func advance(to instant: ContinuousClock.Instant) {
            while true {
                let due = state.withLock { state -> (@Sendable () -> Void)? in
                    guard
                        let index = state.timers.indices.min(by: {
                            state.timers[$0].deadline < state.timers[$1].deadline
                        }),
                        state.timers[index].deadline <= instant
                    else { return nil }
                    let timer = state.timers.remove(at: index)
                    state.now = max(state.now, timer.deadline)
                    return timer.fire
                }
                guard let due else { break }
                due()
            }
            state.withLock { $0.now = max($0.now, instant) }
        }
    }

    static let grace = Duration.milliseconds(101)
    static let hold = Duration.milliseconds(251)
    static let window = Duration.milliseconds(2_001)

    static let rule: Rule = {
        let text = """
            version: 1
            rules:
              - name: shelf
                match: { any: true }
                run: [/bin/true]
                on:
                  removed: { after: 101ms, run: [/bin/true] }
                  held: { for: 251ms, run: [/bin/true] }
                  returned: { within: 2001ms, run: [/bin/true] }
            """
        return try! RuleSet.load(files: [("f.yaml", text)], environment: [:]).get().rules[0]
    }()

    static func tag() -> ReadTag {
        let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]
        return ReadTag(
            tag: TagSummary(reader: "Shelf", uid: "04A1B2C3D4E580", tech: "type2"),
            event: TagEvent(uid: "04A1B2C3D4E580", reader: "Shelf", tech: "type2", uri: nil),
            message: NDEFMessage(records: []), identity: TagIdentity(uid: uid, ndef: []), matches: [],
            readTime: .zero)
    }

    /// What the model expects: the arrival of each presentation, and the later events of each session in order
    /// with how long the tag had been on the reader.
    struct Expected {
        var arrivals: [String] = []
        var later: [[String]] = []
    }

    /// The model: a session starts with a tap; a gap shorter than the grace continues it; a longer one removes it
    /// at the end of the grace, and a return within the window starts a new stay of the same session; `held`
    /// fires when the stay's start plus `for` falls while the tag is on the reader.
    static func model(_ gestures: [(hold: Int, gap: Int)]) -> Expected {
        var expected = Expected()
        var time = 0
        var session = -1
        var stayStart = 0
        var heldDue: Int?
        var leftAt: Int?
        var removedAt: Int?
        let (grace, hold, window) = (101, 251, 2_001)
        func checkHeld(presentFrom: Int, to end: Int) {
            // The held timer fires while the tag is present in [presentFrom, end).
            if let due = heldDue, due >= presentFrom, due < end {
                expected.later[session].append("held \(hold)")
                heldDue = nil
            }
        }
        func dropHeldIfDue(before end: Int) {
            if let due = heldDue, due < end { heldDue = nil }
        }
        for (presented, gap) in gestures {
            if let left = leftAt, time - left < grace {
                expected.arrivals.append("continued \(session)")
            } else {
                if let left = leftAt {
                    expected.later[session].append("removed \(left - stayStart)")
                    removedAt = left + grace
                }
                if let removed = removedAt, session >= 0, time <= removed + window {
                    expected.arrivals.append("returned \(session)")
                } else {
                    session += 1
                    expected.later.append([])
                    expected.arrivals.append("tap \(session)")
                }
                stayStart = time
                heldDue = time + hold
                removedAt = nil
            }
            leftAt = nil
            checkHeld(presentFrom: time, to: time + presented)
            time += presented
            leftAt = time
            dropHeldIfDue(before: time + gap)
            time += gap
        }
        if let left = leftAt { expected.later[session].append("removed \(left - stayStart)") }
        return expected
    }

    @Test("1,000 presentations with random durations fire exactly the events the durations imply")
    func randomPresentationsMatchTheModel() async throws {
        var generator = SystemRandomNumberGenerator()
        let gestures = (0..<1_000).map { _ in
            (
                hold: [30, 150, 400].randomElement(using: &generator)!,
                gap: [40, 180, 1_200, 3_000].randomElement(using: &generator)!
            )
        }
        let expected = Self.model(gestures)

        let clock = VirtualClock()
        let origin = clock.now
        let follower = PresentationFollower(now: { clock.now }, schedule: { clock.schedule($0, $1) })
        let recorded = Mutex<[String: [String]]>([:])
        let perform: PresentationFollower.Perform = { event in
            let ms = event.context.presentedForMilliseconds
            recorded.withLock {
                $0[event.context.presentationID, default: []].append("\(event.context.kind.rawValue) \(ms)")
            }
        }
        var arrivals: [String] = []
        var sessions: [String: Int] = [:]
        var time = 0
        for (index, (presented, gap)) in gestures.enumerated() {
            let at = origin + .milliseconds(time)
            clock.advance(to: at)
            let serial = UInt64(index + 1)
            follower.cardPresented(reader: "Shelf", serial: serial)
            let tag = Self.tag()
            switch follower.arrived(reader: "Shelf", serial: serial, identity: tag.identity) {
            case .continued(let id):
                arrivals.append("continued \(sessions[id] ?? -1)")
            case .returned(let id):
                arrivals.append("returned \(sessions[id] ?? -1)")
                let done = Gate()
                follower.follow(id: id, tag: tag, rules: [Self.rule], start: at, tapDone: done, perform: perform)
                done.open()
            case .tap:
                let id = "p\(index)"
                sessions[id] = sessions.count
                arrivals.append("tap \(sessions[id]!)")
                let done = Gate()
                follower.follow(id: id, tag: tag, rules: [Self.rule], start: at, tapDone: done, perform: perform)
                done.open()
            }
            time += presented
            clock.advance(to: origin + .milliseconds(time))
            follower.cardLeft(reader: "Shelf")
            time += gap
        }
        clock.advance(to: origin + .milliseconds(time + 10_000))
        await follower.stop()

        #expect(arrivals == expected.arrivals)
        let byID = recorded.withLock { $0 }
        let actual = sessions.sorted { $0.value < $1.value }.map { byID[$0.key] ?? [] }
        #expect(actual == expected.later)
        #expect(follower.presentCount == 0)
        let kinds = expected.arrivals.map { String($0.split(separator: " ")[0]) }
        // The run is only worth something if every kind of event happened many times.
        for kind in ["tap", "continued", "returned"] { #expect(kinds.filter { $0 == kind }.count > 50, "\(kind)") }
        let later = expected.later.joined().map { String($0.split(separator: " ")[0]) }
        for kind in ["held", "removed"] { #expect(later.filter { $0 == kind }.count > 50, "\(kind)") }
    }

    @Test("a held timer ends with its presentation: a tag taken away before its hold leaves no timer set")
    func heldTimersEndWithThePresentation() async throws {
        let text = """
            version: 1
            rules:
              - name: shelf
                match: { any: true }
                run: [/bin/true]
                on:
                  removed: { after: 100ms, run: [/bin/true] }
                  held: { for: 1h, run: [/bin/true] }
            """
        let rule = try RuleSet.load(files: [("f.yaml", text)], environment: [:]).get().rules[0]
        let clock = VirtualClock()
        let follower = PresentationFollower(now: { clock.now }, schedule: { clock.schedule($0, $1) })
        let events = Mutex<[String]>([])
        follower.cardPresented(reader: "Shelf", serial: 1)
        let tag = Self.tag()
        #expect(follower.arrived(reader: "Shelf", serial: 1, identity: tag.identity) == .tap)
        let done = Gate()
        follower.follow(id: "p1", tag: tag, rules: [rule], start: clock.now, tapDone: done) { event in
            events.withLock { $0.append(event.context.kind.rawValue) }
        }
        done.open()
        #expect(follower.timerCount == 1)
        follower.cardLeft(reader: "Shelf")
        clock.advance(to: clock.now + .milliseconds(150))
        #expect(follower.presentCount == 0)
        #expect(follower.timerCount == 0, "the held timer of a closed presentation is cancelled")
        clock.advance(to: clock.now + .seconds(7_200))
        await follower.stop()
        #expect(events.withLock { $0 } == ["removed"])
    }
}
