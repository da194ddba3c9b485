import Foundation
import Logging
import NDEF
import NFCTag
import Synchronization
import Testing
import VirtualTag

import class TestSupport.PrivatePCSCD

@testable import PCSC

/// Measures, and prints, the time a tap costs outside the reader: from the reader event to the decoded message,
/// minus the time spent inside pcsc-lite calls (waiting on pcscd, vpcd and the card). Never asserts a time.
///
/// Run: `make measure` (`TAGROUTER_MEASURE=1`; add `-c release` for release figures). `make test` leaves it out:
/// a measurement that asserts nothing proves nothing there (docs/development.md, "Measurements").
@Suite(
    .needsRoot, .timeLimit(.minutes(45)),
    .enabled(
        if: ProcessInfo.processInfo.environment["TAGROUTER_MEASURE"] == "1",
        "a measurement that asserts nothing: make measure runs it")
) struct TapOverheadMeasurement {
    let logger = Logger(label: "test")

    @Test(arguments: ["ntag213", "type4"])
    func tapOverheadOutsideTheReader(tag: String) async throws {
        let uri = "https://home.example.com/door/kitchen?key=1"
        let message = try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
        let card = try VirtualTagKind(rawValue: tag)!.card(holding: message)
        try await withPCSCD { pcscd in
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            var events = ReaderWatcher(logger: logger).makeAsyncIterator()
            var atr: [UInt8] = []
            while let event = await events.next() {
                if case .cardPresented(_, let presentedATR, _) = event {
                    atr = presentedATR
                    break
                }
            }
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 0)
            let clock = ContinuousClock()
            var overheads: [Duration] = []
            var readerTimes: [Duration] = []
            for _ in 0..<100 {
                let start = clock.now
                let (bytes, connection) = try await context.withThread {
                    let connection = try await context.connect(to: reader)
                    let reading = try await TagReader().read(atr: atr, channel: connection)
                    guard case .message(let bytes) = reading.content else { return ([UInt8](), connection) }
                    return (bytes, connection)
                }
                let decoded = try NDEFMessage(decoding: bytes)
                let elapsed = clock.now - start
                #expect(decoded.records.first?.summary.uri == uri)
                overheads.append(elapsed - connection.timeInReader)
                readerTimes.append(connection.timeInReader)
                await connection.disconnect()
            }
            await context.release()
            await presented.remove()

            // The watcher's share: one hop from its blocking thread back to the iterating task, and the state
            // machine turning `SCardGetStatusChange` results into the event.
            let thread = BlockingThread(name: "measure")
            let hopStart = clock.now
            for _ in 0..<1_000 {
                _ = try await thread.run { 0 }
            }
            let hop = (clock.now - hopStart) / 1_000
            var watch = WatchState()
            _ = watch.readersListed([reader, pcscd.readerName(slot: 1)])
            let diffStart = clock.now
            for round in 0..<1_000 {
                let state = UInt32(round % 2 == 0 ? 0x20 : 0x10) | UInt32(round) << 16
                _ = watch.statesChanged([
                    ReaderState(name: ReaderState.plugAndPlayName, currentState: 0, eventState: 0x2_0000),
                    ReaderState(name: reader, currentState: 0, eventState: state, atr: atr),
                ])
            }
            let diff = (clock.now - diffStart) / 1_000

            // The software alone: the same read and decode over an in-memory channel answering at once.
            let instant = InstantChannel(card: card)
            var computes: [Duration] = []
            for _ in 0..<100 {
                let start = clock.now
                let reading = try await TagReader().read(atr: atr, channel: instant)
                guard case .message(let bytes) = reading.content else { return }
                _ = try NDEFMessage(decoding: bytes)
                computes.append(clock.now - start)
            }
            let compute = computes.sorted()[computes.count / 2]

            let sorted = overheads.sorted()
            let median = sorted[sorted.count / 2]
            let p90 = sorted[sorted.count * 9 / 10]
            let readerMedian = readerTimes.sorted()[readerTimes.count / 2]
            print(
                """
                tap overhead (\(tag), \(overheads.count) reads, each connect + UID + NDEF read + decode):
                  outside the reader: median \(micro(median + hop + diff)), p90 \(micro(p90 + hop + diff)) \
                (read \(micro(median)) + watcher hop \(micro(hop)) + state diff \(micro(diff)))
                  inside pcsc-lite (pcscd + vpcd + card): median \(micro(readerMedian))
                  read and decode over an in-memory channel: median \(micro(compute))
                """)
        }
    }

    private func micro(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
        return String(Int(microseconds.rounded())) + " µs"
    }
}

/// A channel answering from an emulated card in memory, with no I/O: what reading costs the software alone.
final class InstantChannel: CardChannel {
    private let card: Mutex<any VirtualCard>

    init(card: any VirtualCard) {
        self.card = Mutex(card)
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        card.withLock { $0.respond(to: command) }
    }
}
