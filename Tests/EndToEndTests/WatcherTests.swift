import Logging
import Testing
import VirtualTag

import struct TestSupport.HarnessError
import class TestSupport.PrivatePCSCD

@testable import PCSC

@Suite(.needsRoot, .timeLimit(.minutes(45))) struct WatcherTests {
    let logger = Logger(label: "test")

    @Test func watcherSeesReadersThenCardPresentedAndRemoved() async throws {
        try await withPCSCD { pcscd in
            var events = ReaderWatcher(logger: logger).makeAsyncIterator()
            #expect(await events.nextChange() == .readerAdded(pcscd.readerName(slot: 0)))
            #expect(await events.nextChange() == .readerAdded(pcscd.readerName(slot: 1)))
            let card = try Type2Card(model: .ntag213, message: [])
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            guard case .cardPresented(let reader, let atr, _) = await events.nextChange() else {
                Issue.record("expected cardPresented")
                return
            }
            #expect(reader == pcscd.readerName(slot: 0))
            #expect(atr == card.atr)
            await presented.remove()
            #expect(await events.nextChange() == .cardRemoved(reader: pcscd.readerName(slot: 0)))
        }
    }

    @Test("heartbeats: once the readers are listed, after each quiet wait slice, and while pcscd is away")
    func heartbeatsComeWhileNothingChanges() async throws {
        try await withPCSCD { pcscd in
            var watcher = ReaderWatcher(logger: logger, firstRetryDelay: .milliseconds(100))
            watcher.waitSlice = 200
            var events = watcher.makeAsyncIterator()
            #expect(await events.next() == .readerAdded(pcscd.readerName(slot: 0)))
            #expect(await events.next() == .readerAdded(pcscd.readerName(slot: 1)))
            #expect(await events.next() == .heartbeat)
            // Nothing changes: each 200 ms slice that ends without a change is reported.
            for _ in 0..<3 { #expect(await events.next() == .heartbeat) }
            await pcscd.stop()
            var lost = false
            var heartbeatsWhileLost = 0
            while heartbeatsWhileLost < 3, let event = await events.next() {
                if case .serviceLost = event { lost = true }
                if lost, event == .heartbeat { heartbeatsWhileLost += 1 }
            }
            #expect(lost)
            #expect(heartbeatsWhileLost == 3)
            watcher.stop()
        }
    }

    @Test func firstCardSkipsReadersNotAcceptedAndReturnsTheCardOnOneThatIs() async throws {
        try await withPCSCD { pcscd in
            let skipped = try Type2Card(model: .ntag213, message: [])
            let wanted = try Type4Card(message: [0xD0, 0x00, 0x00])
            let first = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(skipped)
            let second = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger).present(wanted)
            let wantedReader = pcscd.readerName(slot: 1)
            let found = await ReaderWatcher(logger: logger).firstCard { $0 == wantedReader }
            #expect(found?.reader == wantedReader)
            #expect(found?.atr == wanted.atr)
            await first.remove()
            await second.remove()
        }
    }

    @Test func firstCardReturnsNilWhenTheWatcherIsStopped() async throws {
        try await withPCSCD { _ in
            let watcher = ReaderWatcher(logger: logger)
            async let found = watcher.firstCard { _ in true }
            try await Task.sleep(for: .milliseconds(200))
            watcher.stop()
            #expect(await found == nil)
        }
    }
}

@Suite(.needsRoot, .timeLimit(.minutes(45))) struct ConnectionTests {
    let logger = Logger(label: "test")

    @Test func transmitReachesTheVirtualTagThroughPcscd() async throws {
        try await withPCSCD { pcscd in
            let card = try Type2Card(model: .ntag213, message: [0xD0, 0x00, 0x00])
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 0)
            try await waitForCard(in: reader, context: context)
            let connection = try await context.connect(to: reader)
            #expect(try await connection.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) == card.uid + [0x90, 0x00])
            #expect(
                try await connection.transmit([0xFF, 0xB0, 0x00, 0x03, 0x10]) == Array(card.memory[12..<28]) + [
                    0x90, 0x00,
                ])
            #expect(presented.commandCount == 2)
            await connection.disconnect()
            await presented.remove()
            await context.release()
        }
    }
}

extension ConnectionTests {
    @Test func type4CardAnswersTheNDEFApplicationThroughPcscd() async throws {
        try await withPCSCD { pcscd in
            var options = Type4Card.Options()
            options.maxResponseLength = 0x3B
            let message: [UInt8] = [0xD1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2E, 0x62]
            let card = try Type4Card(message: message, options: options)
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger).present(card)
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 1)
            try await waitForCard(in: reader, context: context)
            let connection = try await context.connect(to: reader)
            let exchanges: [([UInt8], [UInt8])] = [
                ([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00]),
                ([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00]),
                (
                    [0x00, 0xB0, 0x00, 0x00, 0x0F],
                    [
                        0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00, 0x90,
                        0x00,
                    ]
                ),
                ([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x90, 0x00]),
                ([0x00, 0xB0, 0x00, 0x00, 0x0A], [0x00, 0x08] + message + [0x90, 0x00]),
            ]
            for (command, response) in exchanges {
                #expect(try await connection.transmit(command) == response)
            }
            #expect(presented.commandCount == exchanges.count)
            await connection.disconnect()
            await presented.remove()
            await context.release()
        }
    }

    @Test func extendedLengthReadsGetTheirWholeResponse() async throws {
        try await withPCSCD { pcscd in
            var options = Type4Card.Options()
            options.maxResponseLength = 0x0800
            options.isExtendedFile = true
            let message = [UInt8](repeating: 0x5A, count: 0x0700)
            let card = try Type4Card(message: message, options: options)
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 0)
            try await waitForCard(in: reader, context: context)
            let connection = try await context.connect(to: reader)
            _ = try await connection.transmit([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01])
            _ = try await connection.transmit([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04])
            let response = try await connection.transmit([0x00, 0xB0, 0x00, 0x00, 0x00, 0x07, 0x04])
            #expect(response == [0x00, 0x00, 0x07, 0x00] + message + [0x90, 0x00])
            await connection.disconnect()
            await presented.remove()
            await context.release()
        }
    }

    @Test func tagRippedAwayMidReadFailsTheExchangeNamingTheReader() async throws {
        try await withPCSCD { pcscd in
            let card = try Type2Card(model: .ntag213, message: [])
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
                .present(card, answeringAtMost: 1)
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 0)
            try await waitForCard(in: reader, context: context)
            let connection = try await context.connect(to: reader)
            #expect(try await connection.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) == card.uid + [0x90, 0x00])
            do {
                let response = try await connection.transmit([0xFF, 0xB0, 0x00, 0x04, 0x10])
                Issue.record("the vanished tag answered \(response)")
            } catch let error as PCSCError {
                #expect(error.isCardGone, "\(error)")
                #expect(error.reader == reader)
                #expect(error.call == "SCardTransmit")
            }
            await presented.waitUntilGone()
            #expect(presented.commandCount == 1)
            await connection.disconnect()
            await context.release()
        }
    }
}

/// Waits until pcscd reports a card in the reader (vpcd is polled, so it takes up to a few hundred ms).
func waitForCard(in reader: String, context: PCSCContext, within limit: Duration = .seconds(2)) async throws {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await context.status(of: [reader]).first?.isCardPresent == true { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw HarnessError("no card appeared in \(reader) within \(limit)")
}
