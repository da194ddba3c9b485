import Logging
import NDEF
import NFCTag
import PCSC
import Testing
import VirtualTag

import struct TestSupport.HarnessError
import class TestSupport.PrivatePCSCD

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

    @Test func cancellingTheWatchingTaskEndsTheSequencePromptly() async throws {
        try await withPCSCD { pcscd in
            let task = iterating(ReaderWatcher(logger: logger))
            // Let the watcher reach its blocking wait (both readers reported, nothing else happening).
            try await Task.sleep(for: .milliseconds(500))
            let start = ContinuousClock.now
            task.cancel()
            let seen = await task.value.events
            let elapsed = ContinuousClock.now - start
            #expect(seen == [.readerAdded(pcscd.readerName(slot: 0)), .readerAdded(pcscd.readerName(slot: 1))])
            // Each wait also ends by itself after 2 s; ending well before that shows SCardCancel reached it.
            #expect(elapsed < .seconds(1), "cancellation took \(elapsed)")
        }
    }
}

extension WatcherRecoveryTests {
    @Test func stoppingTheWatcherEndsTheSequencePromptlyWithoutCancellingTheTask() async throws {
        try await withPCSCD { pcscd in
            let watcher = ReaderWatcher(logger: logger)
            let task = iterating(watcher)
            try await Task.sleep(for: .milliseconds(500))
            let start = ContinuousClock.now
            watcher.stop()
            let (seen, wasCancelled) = await task.value
            let elapsed = ContinuousClock.now - start
            #expect(seen == [.readerAdded(pcscd.readerName(slot: 0)), .readerAdded(pcscd.readerName(slot: 1))])
            #expect(!wasCancelled)
            // As for cancellation: well before the wait's own 2 s slice, so SCardCancel reached it.
            #expect(elapsed < .seconds(1), "stopping took \(elapsed)")
        }
    }

    @Test func stoppingTheWatcherWhilePcscdIsAwayEndsItsBackoff() async throws {
        try await withPCSCD { pcscd in
            await pcscd.stop()
            let watcher = ReaderWatcher(logger: logger, firstRetryDelay: .seconds(5))
            var events = watcher.makeAsyncIterator()
            guard case .serviceLost = await events.nextChange() else {
                Issue.record("expected serviceLost")
                return
            }
            // The next call sleeps 5 s before trying again; stop() ends that sleep.
            let stopper = Task {
                try await Task.sleep(for: .milliseconds(300))
                watcher.stop()
            }
            let start = ContinuousClock.now
            #expect(await events.nextChange() == nil)
            #expect(ContinuousClock.now - start < .seconds(2))
            try await stopper.value
        }
    }
}

/// Iterates `watcher` in a new task until the sequence ends: the events seen, and whether the task was cancelled.
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
