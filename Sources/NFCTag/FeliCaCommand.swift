/// A FeliCa command frame as a card receives it (`LEN CODE …`): the other side of `FeliCaFrame`, which builds
/// the frames the reader sends (docs/tags.md, "Type 3 tags"). `VirtualTag`'s `FeliCaCard` and the fuzz targets'
/// FeliCa cards answer from this; it lives beside the frames it parses so that a fuzz target needs no emulator.
public enum FeliCaCommand: Sendable, Hashable {
    /// Polling (`00`) for a system code (`FFFF` for any).
    case polling(system: Int)
    /// Read (`06`) or Write (`08`) Without Encryption of one service: the block numbers, and for a write the data.
    case blocks(code: UInt8, service: Int, blocks: [Int], data: [UInt8])
    /// A read or write naming other than one service: the card answers status flags `01 A1`.
    case unsupportedServiceCount(code: UInt8)

    /// Parses `frame` addressed to the card `idm`; nil for what a card ignores (a bad length, another IDm, an
    /// unknown command, block elements cut short).
    /// - Parameters:
    ///   - frame: the frame, starting with its length byte.
    ///   - idm: the card's IDm.
    public init?(frame: [UInt8], idm: [UInt8]) {
        guard frame.count >= 2, Int(frame[0]) == frame.count else { return nil }
        if frame[1] == 0x00 {
            guard frame.count == 6 else { return nil }
            self = .polling(system: Int(frame[2]) << 8 | Int(frame[3]))
            return
        }
        guard frame.count >= 13, Array(frame[2..<10]) == idm else { return nil }
        let code = frame[1]
        guard code == 0x06 || code == 0x08 else { return nil }
        guard frame[10] == 1, frame.count >= 14 else {
            self = .unsupportedServiceCount(code: code)
            return
        }
        let service = Int(frame[12]) << 8 | Int(frame[11])
        var blocks: [Int] = []
        var index = 14
        for _ in 0..<Int(frame[13]) {
            guard index + 1 < frame.count else { return nil }
            if frame[index] & 0x80 != 0 {
                blocks.append(Int(frame[index + 1]))
                index += 2
            } else {
                guard index + 2 < frame.count else { return nil }
                blocks.append(Int(frame[index + 2]) << 8 | Int(frame[index + 1]))
                index += 3
            }
        }
        self = .blocks(code: code, service: service, blocks: blocks, data: Array(frame[index...]))
    }
}
