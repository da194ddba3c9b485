/// The NDEF area of a MIFARE Classic card: the data blocks (trailers left out) of the sectors the MAD marks
/// NDEF, in sector order, read as one Type 2 style TLV stream (docs/tags.md, "MIFARE Classic").
struct ClassicNDEFArea: Sendable, Hashable {
    /// The NDEF sectors, in order.
    private(set) var sectors: [Int] = []
    /// Their data blocks, in order: area byte `i` is byte `i % 16` of `blocks[i / 16]`.
    private(set) var blocks: [Int] = []

    /// Creates an area over some sectors.
    init(sectors: [Int]) {
        append(sectors: sectors)
    }

    /// The area's size in bytes.
    var size: Int { blocks.count * 16 }

    /// Adds sectors after the present ones (MAD2's, after MAD1's).
    mutating func append(sectors more: [Int]) {
        for sector in more where !sectors.contains(sector) {
            sectors.append(sector)
            blocks += MifareClassicModel.dataBlocks(ofSector: sector)
        }
    }

    /// The card byte address (block × 16 + byte) of an area index.
    func address(of index: Int) -> Int {
        guard index < size else { return index }
        return blocks[index / 16] * 16 + index % 16
    }

    /// How TLV errors name an area index: its card byte address, block and area offset.
    func locator(cardName: String) -> (Int) -> (offset: Int, phrase: String) {
        let area = self
        return { index in
            guard index < area.size else { return (index, "\(cardName) TLV at NDEF area byte \(index)") }
            let block = area.blocks[index / 16]
            let address = area.address(of: index)
            return (address, "\(cardName) TLV at byte \(address) (block \(block), NDEF area byte \(index))")
        }
    }
}

extension ClassicSession {
    /// Reads and checks a MAD with the MAD key, which the caller has loaded into slot 0.
    /// - Parameter version: MAD1 (sector 0) or MAD2 (sector 16).
    /// - Returns: the directory, or nil when the card has none: the MAD key is refused, a read is refused, or
    ///   the CRC does not match (a factory card has zeros there).
    /// - Throws: `NFCTagError` (`tagRemoved`, `unexpectedResponse`), `CancellationError`.
    mutating func readMAD(_ version: MAD.Version) async throws -> MAD? {
        guard try await authenticate(sector: version == .mad1 ? 0 : 16, key: .a, slot: 0) else { return nil }
        let first = version == .mad1 ? 1 : 64
        var bytes: [UInt8] = []
        for block in first..<(first + version.byteCount / 16) {
            guard let data = try await readIfAllowed(block: block) else { return nil }
            bytes += data
        }
        return MAD(bytes, version: version)
    }
}
