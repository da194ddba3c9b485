import Logging
import NFCTag
import PCSC
import Synchronization
import Testing
import VirtualTag

import class TestSupport.PrivatePCSCD

/// A MIFARE Classic card whose memory outlives its presentations: each presentation answers through the same
/// card, so what a ripped write left behind can be read at the next tap.
final class SharedClassicCard: Sendable {
    let card: Mutex<MifareClassicCard>

    init(_ card: MifareClassicCard) {
        self.card = Mutex(card)
    }

    /// A presentable view of the card.
    var view: View { View(shared: self) }

    /// The `VirtualCard` handed to `VirtualReader.present`.
    struct View: VirtualCard {
        let shared: SharedClassicCard
        var atr: [UInt8] { shared.card.withLock { $0.atr } }
        mutating func respond(to command: [UInt8]) -> [UInt8] {
            shared.card.withLock { $0.respond(to: command) }
        }
        mutating func powerCycled() {
            shared.card.withLock { $0.powerCycled() }
        }
    }
}

/// The fault suite for writes (issue 13): a Classic card taken away after every command of a write, through
/// pcscd, then read at the next tap: it holds the old message, an empty one or the new one, never anything else.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct ClassicWriteFaultTests {
    let logger = Logger(label: "test")

    @Test func aClassicCardRemovedAtEveryCommandOfAWriteHoldsOldEmptyOrNew() async throws {
        try await withPCSCD { pcscd in
            let old = try RouterHarness.uriMessage("https://example.com/old/" + String(repeating: "o", count: 60))
            let new = try RouterHarness.uriMessage("https://example.com/new/" + String(repeating: "n", count: 200))
            let reader = VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
            let readerName = pcscd.readerName(slot: 0)
            let context = try await PCSCContext.establish(logger: logger)
            let writer = MifareClassicWriter(card: .mifareClassic1K)

            /// Presents the card (answering at most `limit` commands), runs `body` on a connection, removes it.
            func tap<T: Sendable>(
                _ card: SharedClassicCard, limit: Int? = nil, _ body: (CardConnection) async throws -> T
            ) async throws -> (T, Int) {
                let presented = try reader.present(card.view, answeringAtMost: limit)
                try await waitForCard(in: readerName, context: context, within: .seconds(5))
                let connection = try await context.connect(to: readerName)
                let result = try await body(connection)
                await connection.disconnect()
                await presented.remove()
                while try await context.status(of: [readerName]).first?.isCardPresent == true {
                    try await Task.sleep(for: .milliseconds(20))
                }
                return (result, presented.commandCount)
            }

            let atr = try MifareClassicCard(model: .classic1K, message: old).atr
            let full = SharedClassicCard(try MifareClassicCard(model: .classic1K, message: old))
            let (_, commands) = try await tap(full) { try await writer.write(new, to: $0) }
            try #require(commands > 10, "a full write took \(commands) commands")
            var outcomes: [String: Int] = [:]
            for limit in 0..<commands {
                let card = SharedClassicCard(try MifareClassicCard(model: .classic1K, message: old))
                let (failed, _) = try await tap(card, limit: limit) { connection in
                    do {
                        try await writer.write(new, to: connection)
                        return false
                    } catch let error as NFCTagError {
                        return error.code == .tagRemoved
                    }
                }
                #expect(failed, "the write did not fail as removed after \(limit) commands")
                let (content, _) = try await tap(card) { try await TagReader().read(atr: atr, channel: $0).content }
                let name =
                    switch content {
                    case .message(old): "old"
                    case .message(new): "new"
                    case .empty: "empty"
                    default: "other"
                    }
                #expect(name != "other", "after \(limit) of \(commands) commands the card holds \(content)")
                outcomes[name, default: 0] += 1
            }
            await context.release()
            print("fault suite: a Classic 1K write through pcscd answers \(commands) commands; outcomes \(outcomes)")
            #expect(outcomes["old", default: 0] > 0 && outcomes["empty", default: 0] > 0)
        }
    }
}
