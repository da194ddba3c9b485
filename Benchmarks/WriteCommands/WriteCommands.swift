import NFCTag
import Synchronization

/// Commands per write, for each tag kind and layout, against the fewest the layout allows (docs/tags.md, "How a
/// tag is written"). Run with `cd Benchmarks && swift run -c release WriteCommands`. The tags are counting
/// fakes answering like an ACR122U (16 bytes per read); the minimum is worked out from the layout alone.
@main
enum WriteCommands {
    static func main() async throws {
        print("kind     layout                                  message  commands  minimum  (writes)")
        for row in try await rows() {
            let layout = row.layout + String(repeating: " ", count: max(0, 38 - row.layout.count))
            print(
                "\(row.kind)    \(layout) \(pad(row.message, 8)) "
                    + "\(pad(row.commands, 9)) \(pad(row.minimum, 8))  (\(row.writes))")
        }
    }

    struct Row {
        var kind: String
        var layout: String
        var message: Int
        var commands: Int
        var minimum: Int
        var writes: Int
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// An NDEF message of `length` bytes (one URI record).
    static func message(_ length: Int) -> [UInt8] {
        let payload = length - (length - 4 <= 255 ? 4 : 7)
        let body: [UInt8] = [0x04] + Array("example.com/".utf8) + [UInt8](repeating: 0x61, count: payload - 13)
        if length - 4 <= 255 { return [0xD1, 0x01, UInt8(payload), 0x55] + body }
        return [0xC1, 0x01, 0, 0, UInt8(payload >> 8), UInt8(payload & 0xFF), 0x55] + body
    }

    static let ntagATR: [UInt8] = [
        0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x00, 0x68,
    ]

    static func rows() async throws -> [Row] {
        var rows: [Row] = []
        let factory213: [UInt8] = [0x01, 0x03, 0xA0, 0x0C, 0x34]
        for (layout, size, prefix, old, new) in [
            ("NTAG213 factory, empty", 144, factory213, 0, 40),
            ("NTAG213 factory, 40 bytes to 40 others", 144, factory213, 40, 40),
            ("NTAG213 factory, 100 bytes to empty", 144, factory213, 100, 0),
            ("NTAG213 factory, empty, full 137", 144, factory213, 0, 137),
            ("Ultralight, empty", 48, [], 0, 30),
            ("NTAG216, empty, 300 bytes", 872, [], 0, 300),
        ] as [(String, Int, [UInt8], Int, Int)] {
            var area = prefix + [0x03, UInt8(old)] + (old == 0 ? [] : message(old).map { $0 ^ 0x20 }) + [0xFE]
            area += [UInt8](repeating: 0, count: size - area.count)
            let tag = Type2Fake(
                memory: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xE1, 0x10, UInt8(size / 8), 0] + area
                    + [UInt8](repeating: 0, count: 64))
            let bytes = new == 0 ? [] : message(new)
            let result = try await TagWriter().write(bytes, atr: ntagATR, channel: tag)
            // The new TLV: tag, length (1 or 3 bytes), message, terminator when there is room.
            let tlvStart = prefix.count
            let streamEnd = min(size, tlvStart + 1 + (bytes.count < 255 ? 1 : 3) + bytes.count + 1)
            let pages = (streamEnd + 3) / 4 - tlvStart / 4
            // The guard write hides the old message; with an empty new one it is the length page's final write.
            let guardWrite = old != 0 && !bytes.isEmpty ? 1 : 0
            // The dynamic lock bytes (at most 16 here) are read once when the write reaches page 16.
            let lockRead = (streamEnd - 1) / 4 + 4 >= 16 ? 1 : 0
            let valueEnd = tlvStart + 1 + (bytes.count < 255 ? 1 : 3) + bytes.count
            let readBack = 1 + 1 + max(0, (valueEnd - 12 + 15) / 16)
            let minimum = 1 + 1 + lockRead + pages + guardWrite + readBack
            rows.append(
                Row(
                    kind: "type2", layout: layout, message: bytes.count, commands: result.commands, minimum: minimum,
                    writes: tag.writes))
        }
        for (layout, mlc, length) in [
            ("MLc 255, 100 bytes", 255, 100), ("MLc 255, 500 bytes", 255, 500), ("MLc 59, 500 bytes", 59, 500),
            ("MLc 255, empty", 255, 0),
        ] {
            let card = Type4Fake(mlc: mlc, size: 1024)
            let bytes = length == 0 ? [] : message(length)
            let result = try await TagWriter().write(bytes, atr: [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80], channel: card)
            let chunks = (bytes.count + min(mlc, 255) - 1) / min(mlc, 255)
            let writes = bytes.isEmpty ? 1 : 2 + chunks
            let readBack = 1 + 4 + (2 + bytes.count + 254) / 255
            let minimum = 1 + 4 + writes + readBack
            rows.append(
                Row(
                    kind: "type4", layout: layout, message: bytes.count, commands: result.commands, minimum: minimum,
                    writes: card.writes))
        }
        return rows
    }
}

/// A Type 2 tag answering UID, READ BINARY (16 bytes) and UPDATE BINARY (one page), counting writes.
final class Type2Fake: CardChannel {
    private let state: Mutex<(memory: [UInt8], writes: Int)>
    init(memory: [UInt8]) { state = Mutex((memory, 0)) }
    var writes: Int { state.withLock { $0.writes } }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        state.withLock { state in
            if command[1] == 0xCA { return [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x90, 0x00] }
            let address = Int(command[3]) * 4 + Int(command[2]) * 1024
            if command[1] == 0xB0 {
                let count = Int(command[4])
                return Array(state.memory[address..<(address + count)]) + [0x90, 0x00]
            }
            state.writes += 1
            if address >= 16 { state.memory.replaceSubrange(address..<(address + 4), with: command[5..<9]) }
            return [0x90, 0x00]
        }
    }
}

/// A Type 4 tag (mapping 2.0, MLe 255) answering SELECT, READ BINARY and UPDATE BINARY, counting writes.
final class Type4Fake: CardChannel {
    private let state: Mutex<(file: [UInt8], selected: UInt8, writes: Int)>
    let cc: [UInt8]
    init(mlc: Int, size: Int) {
        cc =
            [0x00, 0x0F, 0x20, 0x00, 0xFF, UInt8(mlc >> 8), UInt8(mlc & 0xFF), 0x04, 0x06, 0xE1, 0x04]
            + [UInt8(size >> 8), UInt8(size & 0xFF), 0x00, 0x00]
        state = Mutex(([UInt8](repeating: 0, count: size), 0, 0))
    }
    var writes: Int { state.withLock { $0.writes } }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        state.withLock { state in
            switch command[1] {
            case 0xCA: return [0x01, 0x02, 0x03, 0x04, 0x90, 0x00]
            case 0xA4:
                if command[2] == 0x00 { state.selected = command[6] }
                return [0x90, 0x00]
            case 0xB0:
                let file = state.selected == 0x03 ? cc : state.file
                let offset = Int(command[2]) << 8 | Int(command[3])
                let end = min(file.count, offset + (command[4] == 0 ? 256 : Int(command[4])))
                return Array(file[offset..<end]) + [0x90, 0x00]
            default:
                state.writes += 1
                let offset = Int(command[2]) << 8 | Int(command[3])
                let data = command[5..<(5 + Int(command[4]))]
                state.file.replaceSubrange(offset..<(offset + data.count), with: data)
                return [0x90, 0x00]
            }
        }
    }
}
