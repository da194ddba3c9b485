import Logging
import NDEF
import NFCTag
import Synchronization
import Testing
import VirtualTag

import struct TestSupport.HarnessError
import class TestSupport.PrivatePCSCD
import func TestSupport.waitUntil

@testable import PCSC

/// The watcher against a real pcscd that is stopped, restarted, or watched by a task that gets cancelled.
@Suite(.needsRoot, .timeLimit(.minutes(45))) struct WatcherRecoveryTests {
    let logger = Logger(label: "test")

    @Test func quickRemoveAndReplaceIsANewPresentationWithAHigherEventCount() async throws {
        try await withPCSCD { pcscd in
            let slot = VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
            let reader = pcscd.readerName(slot: 0)
            var events = ReaderWatcher(logger: logger).makeAsyncIterator()
            _ = await events.nextChange()
            _ = await events.nextChange()
            let first = try slot.present(try Type2Card(model: .ntag213, message: []))
            guard case .cardPresented(_, _, let firstCount) = await events.nextChange() else {
                Issue.record("expected the first card")
                return
            }
            // The watcher is not waiting while the cards are swapped: it never sees the reader empty.
            await first.remove()
            let context = try await PCSCContext.establish(logger: logger)
            try await waitForNoCard(in: reader, context: context)
            let second = try slot.present(try Type4Card(message: []))
            try await waitForCard(in: reader, context: context)
            await context.release()
            #expect(await events.nextChange() == .cardRemoved(reader: reader))
            guard case .cardPresented(let secondReader, let atr, let secondCount) = await events.nextChange() else {
                Issue.record("expected the second card")
                return
            }
            #expect(secondReader == reader)
            #expect(atr == (try Type4Card(message: [])).atr)
            #expect(secondCount != firstCount)
            await second.remove()
        }
    }

    @Test func pcscdRestartIsReportedAndTheNextTagIsSeen() async throws {
        try await withPCSCD { pcscd in
            let slot = VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
            let reader = pcscd.readerName(slot: 0)
            var events = ReaderWatcher(logger: logger).makeAsyncIterator()
            #expect(await events.nextChange() == .readerAdded(reader))
            #expect(await events.nextChange() == .readerAdded(pcscd.readerName(slot: 1)))
            let before = try slot.present(try Type2Card(model: .ntag213, message: []))
            guard case .cardPresented = await events.nextChange() else {
                Issue.record("expected the card before the restart")
                return
            }
            try await pcscd.restart()
            await before.waitUntilGone()
            guard case .serviceLost(let error) = await events.nextChange() else {
                Issue.record("expected serviceLost")
                return
            }
            #expect(error.isServiceLost)
            #expect(await events.nextChange() == .cardRemoved(reader: reader))
            #expect(await events.nextChange() == .readerRemoved(reader))
            #expect(await events.nextChange() == .readerRemoved(pcscd.readerName(slot: 1)))
            #expect(await events.nextChange() == .serviceBack)
            #expect(await events.nextChange() == .readerAdded(reader))
            #expect(await events.nextChange() == .readerAdded(pcscd.readerName(slot: 1)))
            let message = try NDEFMessage(records: [URIRecord(uri: "https://example.com/after").record]).encoded()
            let after = try slot.present(try Type2Card(model: .ultralight, message: message))
            guard case .cardPresented(let afterReader, let atr, _) = await events.nextChange() else {
                Issue.record("expected the card after the restart")
                return
            }
            #expect(afterReader == reader)
            let context = try await PCSCContext.establish(logger: logger)
            let reading = try await context.withThread {
                let connection = try await context.connect(to: reader)
                let reading = try await TagReader().read(atr: atr, channel: connection)
                await connection.disconnect()
                return reading
            }
            await context.release()
            #expect(reading.technology == .type2)
            #expect(reading.content == .message(message))
            await after.remove()
        }
    }

    @Test func pcscdAbsentAtStartIsReportedThenWatchingBegins() async throws {
        try await withPCSCD { pcscd in
            await pcscd.stop()
            var events = ReaderWatcher(logger: logger).makeAsyncIterator()
            guard case .serviceLost(let error) = await events.nextChange() else {
                Issue.record("expected serviceLost")
                return
            }
            #expect(error.code == PCSCError.noService)
            try await pcscd.restart()
            #expect(await events.nextChange() == .serviceBack)
            #expect(await events.nextChange() == .readerAdded(pcscd.readerName(slot: 0)))
        }
    }

    @Test func cancellingTheWatchingTaskEndsTheSequence() async throws {
        try await withPCSCD { pcscd in
            let task = iterating(unslicedWatcher())
            // Let the watcher reach its blocking wait (both readers reported, nothing else happening).
            try await Task.sleep(for: .milliseconds(500))
            task.cancel()
            let seen = try #require(await Self.end(of: task), "the wait went on: SCardCancel did not reach it").events
            #expect(seen == [.readerAdded(pcscd.readerName(slot: 0)), .readerAdded(pcscd.readerName(slot: 1))])
        }
    }

    /// A watcher whose waits end by themselves only after 60 s: within a test, only SCardCancel ends one.
    func unslicedWatcher(firstRetryDelay: Duration = .milliseconds(200)) -> ReaderWatcher {
        var watcher = ReaderWatcher(logger: logger, firstRetryDelay: firstRetryDelay)
        watcher.waitSlice = 60_000
        return watcher
    }

    /// What the iterating task returned, or nil when it had not ended 30 s later: a wait or a backoff that only
    /// its own 60 s would have ended.
    static func end<T: Sendable>(of task: Task<T, Never>) async -> T? {
        let ended = Latest<T>()
        Task { ended.set(await task.value) }
        return await ended.value(within: .seconds(30))
    }
}

extension WatcherRecoveryTests {
    @Test func stoppingTheWatcherEndsTheSequenceWithoutCancellingTheTask() async throws {
        try await withPCSCD { pcscd in
            let watcher = unslicedWatcher()
            let task = iterating(watcher)
            try await Task.sleep(for: .milliseconds(500))
            watcher.stop()
            // As for cancellation: only SCardCancel ends the wait.
            let (seen, wasCancelled) = try #require(await Self.end(of: task), "the wait went on after stop()")
            #expect(seen == [.readerAdded(pcscd.readerName(slot: 0)), .readerAdded(pcscd.readerName(slot: 1))])
            #expect(!wasCancelled)
        }
    }

    @Test func whatALostServiceReportsArrivesBeforeTheBackoff() async throws {
        try await withPCSCD { pcscd in
            let slot = VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
            let reader = pcscd.readerName(slot: 0)
            let card = try slot.present(try Type2Card(model: .ntag213, message: []))
            // A first back-off of 60 s: the readers and the card must be reported gone before it, not after.
            let watcher = ReaderWatcher(logger: logger, firstRetryDelay: .seconds(60))
            defer { watcher.stop() }
            let seen = SeenEvents()
            let task = Task {
                var events = watcher.makeAsyncIterator()
                while let event = await events.nextChange() { seen.events.withLock { $0.append(event) } }
            }
            func waitForEvents(_ count: Int) async -> [ReaderEvent] {
                try? await waitUntil("\(count) events", timeout: .seconds(30)) {
                    seen.events.withLock { $0.count } >= count
                }
                return seen.events.withLock { $0 }
            }
            let before = await waitForEvents(3)
            #expect(before.count == 3, "\(before)")
            guard before.count == 3, case .cardPresented = before[2] else {
                Issue.record("expected the readers and the card, not \(before)")
                return
            }
            await pcscd.stop()
            await card.waitUntilGone()
            let all = await waitForEvents(7)
            watcher.stop()
            _ = await Self.end(of: task)
            #expect(all.count == 7, "\(all)")
            guard all.count == 7 else { return }
            guard case .serviceLost = all[3] else {
                Issue.record("expected serviceLost, not \(all[3])")
                return
            }
            #expect(
                Array(all[4...]) == [
                    .cardRemoved(reader: reader), .readerRemoved(reader), .readerRemoved(pcscd.readerName(slot: 1)),
                ])
        }
    }

    @Test func stoppingTheWatcherWhilePcscdIsAwayEndsItsBackoff() async throws {
        try await withPCSCD { pcscd in
            await pcscd.stop()
            // pcscd is away: the watcher's first attempt fails at once and it backs off for 60 s, unless stop() ends
            // that sleep.
            let watcher = unslicedWatcher(firstRetryDelay: .seconds(60))
            let task = Task {
                var events = watcher.makeAsyncIterator()
                var all: [ReaderEvent] = []
                while let event = await events.nextChange() { all.append(event) }
                return all
            }
            try await Task.sleep(for: .milliseconds(300))
            watcher.stop()
            let all = try #require(await Self.end(of: task), "the backoff went on after stop()")
            #expect(all.allSatisfy { if case .serviceLost = $0 { true } else { false } }, "\(all)")
        }
    }
}

/// The events a watching task saw so far.
final class SeenEvents: Sendable {
    let events = Mutex<[ReaderEvent]>([])
}

/// The latest value a task set, for a test to wait on with a limit.
final class Latest<T: Sendable>: Sendable {
    private let latest = Mutex<T?>(nil)

    /// Sets the value.
    func set(_ value: T) { latest.withLock { $0 = value } }

    /// The value once one was set, or nil when none was within `limit`.
    func value(within limit: Duration) async -> T? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let value = latest.withLock({ $0 }) { return value }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return latest.withLock { $0 }
    }
}

/// Iterates `watcher` in a task of its own; the changes it saw (heartbeats left out) and whether it was cancelled.
func iterating(_ watcher: ReaderWatcher) -> Task<(events: [ReaderEvent], wasCancelled: Bool), Never> {
    Task {
        var seen: [ReaderEvent] = []
        for await event in watcher where event != .heartbeat {
            seen.append(event)
        }
        return (seen, Task.isCancelled)
    }
}

/// Waits until pcscd reports the reader empty.
func waitForNoCard(in reader: String, context: PCSCContext) async throws {
    for _ in 0..<100 {
        if try await context.status(of: [reader]).first?.isCardPresent == false { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw HarnessError("the card did not leave \(reader) within 2 s")
}

extension ReaderWatcher.Iterator {
    /// The next event that is not a heartbeat: what tests about readers and cards look at.
    mutating func nextChange() async -> ReaderEvent? {
        while let event = await next() {
            if event != .heartbeat { return event }
        }
        return nil
    }
}
