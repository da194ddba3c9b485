import Foundation
import Logging
import NDEF
import NFCTag
import TagRouterCore
import Testing
import VirtualTag

import class TestSupport.PrivatePCSCD

@testable import PCSC

/// Card reads and the watcher's wait as `tagrouter run` arranges them (`RouterLauncher`): the watcher waits on a
/// thread of its own, and each reader's reads run on that reader's thread of the ``PCSCCardReader``.
@Suite(.needsRoot, .timeLimit(.minutes(45))) struct ReaderIndependenceTests {
    let logger = Logger(label: "test")

    /// The watcher's wait slice in these tests, in ms: a read that waited for a wait to end would take this long.
    static let slice: UInt32 = 30_000

    @Test func readsQueuedAtRandomInstantsOfTheWatchersWaitsNeverWaitForItsSlice() async throws {
        try await withPCSCD { pcscd in
            let message = try NDEFMessage(records: [URIRecord(uri: "https://example.com/independent").record])
                .encoded()
            let card = try Type2Card(model: .ntag213, message: message)
            let tagged = pcscd.readerName(slot: 0)
            let other = pcscd.readerName(slot: 1)
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            let otherSlot = VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger)
            let watchThread = BlockingThread(name: "watch")
            var watcher = ReaderWatcher(logger: logger, thread: watchThread)
            watcher.waitSlice = Self.slice
            let (events, continuation) = AsyncStream.makeStream(of: ReaderEvent.self)
            let watching = Task(executorPreference: watchThread) { [watcher] in
                for await event in watcher where event != .heartbeat {
                    continuation.yield(event)
                }
                continuation.finish()
            }
            var seen = events.makeAsyncIterator()
            while let event = await seen.next() {
                if case .cardPresented(let reader, _, _) = event, reader == tagged { break }
            }
            let cardReader = PCSCCardReader(logger: logger)
            var otherCard: PresentedCard?
            for round in 0..<40 {
                // A card comes or goes on the other reader: the watcher's wait ends, the watcher reports the change
                // and waits again.
                if let presentedOther = otherCard {
                    await presentedOther.remove()
                    otherCard = nil
                    #expect(await seen.next() == .cardRemoved(reader: other))
                } else {
                    otherCard = try otherSlot.present(try Type4Card(message: []))
                    guard case .cardPresented(let reader, _, _) = await seen.next(), reader == other else {
                        Issue.record("expected the card on \(other)")
                        break
                    }
                }
                // A read queued at a random instant around the start of the next wait. Nothing on the readers
                // changes until it is done, so a read queued behind the wait would wait for the wait's slice.
                let pause = Int.random(in: -1_000..<3_000)
                if pause > 0 { try await Task.sleep(for: .microseconds(pause)) }
                let queued = ContinuousClock.now
                let reading = try await Task(executorPreference: cardReader.executor(for: tagged)) {
                    try await cardReader.read(reader: tagged, atr: card.atr)
                }.value
                let took = ContinuousClock.now - queued
                #expect(reading.content == .message(message))
                #expect(took < .milliseconds(Int(Self.slice)), "read \(round) waited \(took) for the watcher's wait")
            }
            watcher.stop()
            await watching.value
            await cardReader.reset()
            await otherCard?.remove()
            await presented.remove()
        }
    }

    @Test func readsOnTwoReadersRunAtTheSameTime() async throws {
        try await withPCSCD { pcscd in
            let message = try NDEFMessage(records: [URIRecord(uri: "https://example.com/together").record])
                .encoded()
            let meeting = Rendezvous()
            var presented: [PresentedCard] = []
            for slot in 0..<2 {
                let card = MeetingCard(card: try Type2Card(model: .ntag213, message: message), side: slot, at: meeting)
                presented.append(try VirtualReader(port: pcscd.vpcdPort(slot: slot), logger: logger).present(card))
            }
            let context = try await PCSCContext.establish(logger: logger)
            for slot in 0..<2 {
                try await waitForCard(in: pcscd.readerName(slot: slot), context: context)
            }
            await context.release()
            let cardReader = PCSCCardReader(logger: logger)
            let atr = try Type2Card(model: .ntag213, message: message).atr
            let reads = (0..<2).map { slot in
                let reader = pcscd.readerName(slot: slot)
                return Task(executorPreference: cardReader.executor(for: reader)) {
                    try await cardReader.read(reader: reader, atr: atr)
                }
            }
            for read in reads {
                #expect(try await read.value.content == .message(message))
            }
            // Each tag held its first answer until the other had a command: both did only if the reads overlapped.
            #expect(meeting.sidesThatMet == [0, 1])
            await cardReader.reset()
            for card in presented {
                await card.remove()
            }
        }
    }
}

/// A tag that holds its first answer until the tag on the other reader has received a command, or 30 s have
/// passed: two reads get past their first command at once only if they run at the same time.
struct MeetingCard<Card: VirtualCard>: VirtualCard {
    var card: Card
    let side: Int
    let meeting: Rendezvous
    var hasArrived = false

    init(card: Card, side: Int, at meeting: Rendezvous) {
        self.card = card
        self.side = side
        self.meeting = meeting
    }

    var atr: [UInt8] { card.atr }

    mutating func respond(to command: [UInt8]) -> [UInt8] {
        if !hasArrived {
            hasArrived = true
            meeting.arrive(side)
        }
        return card.respond(to: command)
    }

    mutating func powerCycled() {
        card.powerCycled()
    }
}

/// Where the first commands of two ``MeetingCard``s meet.
///
/// `@unchecked Sendable`: every stored property is read and written only while `condition` is locked.
final class Rendezvous: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived: Set<Int> = []
    private var met: Set<Int> = []

    /// The sides whose card saw the other's command arrive while it held its own answer.
    var sidesThatMet: Set<Int> {
        condition.lock()
        defer { condition.unlock() }
        return met
    }

    /// Side `side`'s first command arrived: waits until the other side's has too, at most 30 s.
    func arrive(_ side: Int) {
        condition.lock()
        defer { condition.unlock() }
        arrived.insert(side)
        condition.broadcast()
        let deadline = Date().addingTimeInterval(30)
        while arrived.count < 2, condition.wait(until: deadline) {}
        if arrived.count == 2 { met.insert(side) }
    }
}
