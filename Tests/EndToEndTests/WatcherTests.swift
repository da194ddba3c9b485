import Logging
import PCSC
import TestSupport
import Testing
import VirtualTag

@Suite struct WatcherTests {
    let logger = Logger(label: "test")

    @Test func watcherSeesReadersThenCardPresentedAndRemoved() async throws {
        try await PrivatePCSCD.withInstance { pcscd in
            var events = ReaderWatcher(logger: logger).makeAsyncIterator()
            #expect(await events.next() == .readerAdded(pcscd.readerName(slot: 0)))
            #expect(await events.next() == .readerAdded(pcscd.readerName(slot: 1)))
            let card = try Type2Card(model: .ntag213, message: [])
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            guard case .cardPresented(let reader, let atr, _) = await events.next() else {
                Issue.record("expected cardPresented")
                return
            }
            #expect(reader == pcscd.readerName(slot: 0))
            #expect(atr == card.atr)
            await presented.remove()
            #expect(await events.next() == .cardRemoved(reader: pcscd.readerName(slot: 0)))
        }
    }
}

@Suite struct ConnectionTests {
    let logger = Logger(label: "test")

    @Test func transmitReachesTheVirtualTagThroughPcscd() async throws {
        try await PrivatePCSCD.withInstance { pcscd in
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

/// Waits until pcscd reports a card in the reader (vpcd is polled, so it takes up to a few hundred ms).
func waitForCard(in reader: String, context: PCSCContext) async throws {
    for _ in 0..<100 {
        if try await context.status(of: [reader]).first?.isCardPresent == true { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw HarnessError("no card appeared in \(reader) within 2 s")
}
