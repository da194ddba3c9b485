import Foundation
import NDEF
import NFCTag
import Synchronization
import VirtualTag

/// Counts the APDUs TagRouter sends to read and write a Type 5 tag (ICODE SLIX2) and a FeliCa Lite-S holding a
/// 40-byte URI message, through the emulated cards, and compares them with the fewest the layout allows
/// (docs/tags.md, "Type 5 tags" and "Type 3 tags"). Exits 1 when a count is above its minimum.
@main
enum TagCommandCounts {
    /// A channel onto a virtual card that counts the commands.
    final class CountingChannel<Card: VirtualCard>: CardChannel {
        private let state: Mutex<(card: Card, count: Int)>
        init(_ card: Card) { state = Mutex((card, 0)) }
        var count: Int { state.withLock { $0.count } }
        var card: Card { state.withLock { $0.card } }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            state.withLock { state in
                state.count += 1
                return state.card.respond(to: command)
            }
        }
    }

    static func main() async throws {
        let message = try NDEFMessage(records: [URIRecord(uri: "https://home.example.com/door/kitchen?key=1").record])
            .encoded()
        precondition(message.count == 40)
        var rows: [(String, Int, Int)] = []

        // Type 5, 4-byte blocks, one block per READ: FF CA, block 0 (CC), then the blocks up to the end of the
        // NDEF TLV (4 + 2 + 40 bytes → blocks 1-11).
        let type5 = try Type5Card(message: message)
        let type5Read = CountingChannel(type5)
        let reading = try await TagReader().read(atr: type5.atr, channel: type5Read)
        precondition(reading.content == .message(message))
        let tlvEnd = 4 + 2 + message.count
        let type5ReadMinimum = 1 + (tlvEnd + 3) / 4
        rows.append(("Type 5 read (FF CA + READ)", type5Read.count, type5ReadMinimum))
        // Write: block 0 (CC), the L = 0 block, the other blocks up to the terminator, the L block again, then
        // the read-back (block 0 and the TLV's blocks).
        let type5Write = CountingChannel(try Type5Card(message: []))
        try await Type5Writer().write(message, to: type5Write)
        let written = (tlvEnd + 1 + 3) / 4 - 1
        let type5WriteMinimum = 1 + written + 1 + (tlvEnd + 3) / 4
        rows.append(("Type 5 write (CC, UPDATEs, read-back)", type5Write.count, type5WriteMinimum))

        // FeliCa Lite-S on an ACR122U: FF CA (IDm), block 0, blocks 1-3 (Nbr 4).
        let felica = try FeliCaCard(message: message)
        let felicaRead = CountingChannel(felica)
        let felicaReading = try await TagReader().read(atr: felica.atr, channel: felicaRead)
        precondition(felicaReading.content == .message(message))
        let blocks = (message.count + 15) / 16
        rows.append(("FeliCa Lite-S read", felicaRead.count, 1 + 1 + (blocks + 3) / 4))
        // Write: FF CA, block 0, attribute WriteF 0F, the data blocks one per command (Nbw 1), the attribute,
        // then the read-back (block 0, blocks 1-3).
        let felicaWrite = CountingChannel(try FeliCaCard(message: []))
        try await Type3Writer().write(message, to: felicaWrite, atr: felica.atr)
        rows.append(("FeliCa Lite-S write", felicaWrite.count, 1 + 1 + 1 + blocks + 1 + 1 + (blocks + 3) / 4))

        print("40-byte URI message: APDUs sent vs the fewest the layout allows")
        var over = false
        for (name, count, minimum) in rows {
            print("\(name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(count) (minimum \(minimum))")
            if count > minimum { over = true }
        }
        if over {
            print("a count is above its minimum")
            exit(1)
        }
    }
}
