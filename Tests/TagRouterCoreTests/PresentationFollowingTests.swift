import Foundation
import NDEF
import TagRules
import Testing

@testable import TagRouterCore

/// ``Presentations``' later events on a virtual clock: 1,000 presentations with random durations produce exactly
/// the events the durations imply (issue 30), computed here by a model of docs/rules.md, "Tags that stay on the
/// reader", written independently of the value. The value is driven alone, with no router and no task: the test
/// sets the timers it asks for and fires them in deadline order.
@Suite struct PresentationFollowingTests {
    /// The value, the time, and the timers it asked for; the later events it fired, by presentation.
    struct Driver {
        var presentations = Presentations()
        var now = ContinuousClock.now
        var timers: [(deadline: ContinuousClock.Instant, id: UInt64)] = []
        var fired: [String: [String]] = [:]
        var readers: [[String: Bool]] = []

        /// Changes the value, then carries out its effects as the router would.
        @discardableResult
        mutating func change<Result>(_ body: (inout Presentations) -> Result) -> Result {
            let result = body(&presentations)
            for effect in presentations.takeEffects() {
                switch effect {
                case .setTimer(let id, let deadline): timers.append((deadline, id))
                case .cancelTimer(let id): timers.removeAll { $0.id == id }
                case .fire(let event):
                    let ms = event.context.presentedForMilliseconds
                    fired[event.context.presentationID, default: []].append("\(event.context.kind.rawValue) \(ms)")
                case .readersChanged(let picture): readers.append(picture)
                }
            }
            return result
        }

        /// Moves to `instant`, firing every timer due on the way at its own deadline.
        mutating func advance(to instant: ContinuousClock.Instant) {
            while let index = timers.indices.min(by: { timers[$0].deadline < timers[$1].deadline }),
                timers[index].deadline <= instant
            {
                let timer = timers.remove(at: index)
                now = max(now, timer.deadline)
                let now = now
                // A timer the value still wants always comes to a verdict (cancelled ones left `timers` already).
                if change({ $0.timerFired(timer.id, now: now) }) == nil {
                    Issue.record("timer \(timer.id): no verdict")
                }
            }
            now = max(now, instant)
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

        var driver = Driver()
        let origin = driver.now
        _ = driver.change { $0.readerAdded(reader: "Shelf") }
        var arrivals: [String] = []
        var sessions: [String: Int] = [:]
        var time = 0
        for (index, (presented, gap)) in gestures.enumerated() {
            let at = origin + .milliseconds(time)
            driver.advance(to: at)
            let action = driver.change {
                $0.cardPresented(reader: "Shelf", eventCount: UInt16(truncatingIfNeeded: index))
            }
            guard case .read(let serial) = action else {
                Issue.record("presentation \(index) was not read")
                return
            }
            let tag = Self.tag()
            let arrival = driver.change { $0.arrived(reader: "Shelf", serial: serial, identity: tag.identity, now: at) }
            switch arrival {
            case .continued(let id):
                arrivals.append("continued \(sessions[id] ?? -1)")
            case .returned(let id):
                arrivals.append("returned \(sessions[id] ?? -1)")
                driver.change { $0.follow(id: id, tag: tag, rules: [Self.rule], start: at, now: at) }
            case .tap:
                let id = "p\(index)"
                sessions[id] = sessions.count
                arrivals.append("tap \(sessions[id]!)")
                driver.change { $0.follow(id: id, tag: tag, rules: [Self.rule], start: at, now: at) }
            }
            time += presented
            let left = origin + .milliseconds(time)
            driver.advance(to: left)
            driver.change { $0.cardRemoved(reader: "Shelf", now: left) }
            time += gap
        }
        driver.advance(to: origin + .milliseconds(time + 10_000))
        driver.change { $0.stop() }

        #expect(arrivals == expected.arrivals)
        let actual = sessions.sorted { $0.value < $1.value }.map { driver.fired[$0.key] ?? [] }
        #expect(actual == expected.later)
        #expect(driver.presentations.followedCount == 0)
        #expect(driver.timers.isEmpty && driver.presentations.timerCount == 0)
        // The shelf's presence sensor: told only when it changed, and every change told.
        let told = driver.readers.map { $0["Shelf"] ?? false }
        #expect(told.count == 2 * gestures.count + 1)
        #expect(zip(told, told.dropFirst()).allSatisfy { $0 != $1 })
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
        var driver = Driver()
        _ = driver.change { $0.readerAdded(reader: "Shelf") }
        let tag = Self.tag()
        guard case .read(let serial) = driver.change({ $0.cardPresented(reader: "Shelf", eventCount: 1) }) else {
            Issue.record("the presentation was not read")
            return
        }
        let now = driver.now
        #expect(driver.change { $0.arrived(reader: "Shelf", serial: serial, identity: tag.identity, now: now) } == .tap)
        driver.change { $0.follow(id: "p1", tag: tag, rules: [rule], start: now, now: now) }
        #expect(driver.presentations.timerCount == 1)
        driver.change { $0.cardRemoved(reader: "Shelf", now: now) }
        driver.advance(to: now + .milliseconds(150))
        #expect(driver.presentations.followedCount == 0)
        #expect(driver.presentations.timerCount == 0, "the held timer of a closed presentation is cancelled")
        #expect(driver.timers.isEmpty, "and the router was told to cancel it")
        driver.advance(to: now + .seconds(7_200))
        #expect(driver.fired["p1"]?.map { $0.prefix { $0 != " " } } == ["removed"])
    }
}
