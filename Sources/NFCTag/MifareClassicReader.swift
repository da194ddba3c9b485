/// Reads the NDEF message of a MIFARE Classic 1K, 4K or Mini card formatted the NFC Forum way (MAD with AID
/// `03 E1`, public keys), with as few authentications and reads as the message allows (docs/tags.md,
/// "MIFARE Classic").
///
/// The sequence: LOAD KEY `A0A1A2A3A4A5` into slot 0, AUTHENTICATE sector 0 (block 3), READ blocks 1 and 2
/// (MAD1, CRC checked), LOAD KEY `D3F7D3F7D3F7` into slot 1, then for each NDEF sector as far as the TLV
/// stream needs: AUTHENTICATE its first block, READ its data blocks one by one, stopping as soon as the NDEF
/// TLV's length is covered. A 40-byte URI message on a 1K takes 9 commands. On a 4K the MAD2 (sector 16) is
/// read only when the message continues past sector 15. The sector 0 GPB is not read: the MAD's CRC and AIDs
/// decide.
///
/// A card that is not NDEF formatted (the reader refuses a key load, the card refuses the MAD key, the MAD's
/// CRC is wrong or no sector is NDEF) is `.absent`: a factory card or door fob, known by its UID alone. That is
/// not an error and stops after the failed command.
public struct MifareClassicReader: Sendable {
    /// Creates a reader.
    public init() {}

    /// Reads the NDEF content.
    /// - Parameters:
    ///   - channel: the channel to the card.
    ///   - card: the ATR's card name (Classic 1K, 4K or Mini), which gives the number of sectors.
    /// - Returns: `.message`, `.empty` (an NDEF TLV of length 0) or `.absent` (not NDEF formatted, or no NDEF
    ///   TLV before the terminator).
    /// - Throws: `NFCTagError`: `unsupportedCard` for a card name that is not a MIFARE Classic; `tagRemoved`
    ///   (never a partial message); `authenticationFailed` when an NDEF sector refuses the NDEF key;
    ///   `unexpectedStatus` when a read in an NDEF sector is refused; `unexpectedResponse`; `malformedTLV`
    ///   naming the card byte address, block and NDEF area offset. `CancellationError`.
    public func read(from channel: some CardChannel, card: ATRInfo.CardName) async throws -> TagReading.Content {
        guard let model = MifareClassicModel(cardName: card) else {
            throw NFCTagError(.unsupportedCard, "\(card) is not a MIFARE Classic card")
        }
        var session = ClassicSession(channel: channel, cardName: model.displayName)
        guard try await session.load(ClassicKey.mad, slot: 0), let mad1 = try await session.readMAD(.mad1) else {
            return .absent
        }
        var area = ClassicNDEFArea(sectors: mad1.ndefSectors.filter { $0 < model.sectorCount })
        var mad2Pending = model == .classic4K
        if area.sectors.isEmpty {
            guard mad2Pending, let mad2 = try await session.readMAD(.mad2) else { return .absent }
            mad2Pending = false
            area.append(sectors: mad2.ndefSectors)
            guard !area.sectors.isEmpty else { return .absent }
        }
        guard try await session.load(ClassicKey.ndef, slot: 1) else { return .absent }

        // Until MAD2 is read, the area may extend over sectors 17-39: walk as if it did, and read MAD2 when the
        // stream reaches past what MAD1 gives.
        let mad2Span = MifareClassicModel.classic4K.ndefCapacity - MifareClassicModel.classic1K.ndefCapacity
        var walker = Type2TLVWalker(
            dataAreaSize: area.size + (mad2Pending ? mad2Span : 0), locate: area.locator(cardName: model.displayName))
        var bytes: [UInt8] = []
        while true {
            let step = try Self.step(&walker, over: bytes, mad2Pending: mad2Pending)
            let needed: Int
            switch step {
            case .need(let count): needed = count
            case .noNDEF: return .absent
            case .ndef(_, _, length: 0): return .empty
            case .ndef(_, let end, _): needed = end
            }
            if needed > area.size {
                // Only possible while MAD2 is pending: read it, then walk again over the real area.
                precondition(mad2Pending, "the TLV walk asked for bytes past the NDEF area")
                // Finish MAD1's sectors first, so no sector is authenticated twice.
                if case .ndef = step { try await fill(&bytes, to: area.size, area: area, session: &session) }
                mad2Pending = false
                if let mad2 = try await session.readMAD(.mad2) { area.append(sectors: mad2.ndefSectors) }
                walker = Type2TLVWalker(dataAreaSize: area.size, locate: area.locator(cardName: model.displayName))
                continue
            }
            try await fill(&bytes, to: needed, area: area, session: &session)
            if case .ndef(let start, let end, _) = step {
                return .message(walker.value(bytes, start: start, end: end))
            }
        }
    }

    /// One walk step; while MAD2 is pending, a TLV error asks for MAD2 first (the area may be larger).
    private static func step(_ walker: inout Type2TLVWalker, over bytes: [UInt8], mad2Pending: Bool) throws
        -> Type2TLVWalker.Step
    {
        guard mad2Pending else { return try walker.step(bytes, available: bytes.count) }
        let result = Result { () throws(NFCTagError) -> Type2TLVWalker.Step in
            try walker.step(bytes, available: bytes.count)
        }
        return (try? result.get()) ?? .need(Int.max)
    }

    /// Reads area blocks until `bytes` holds `count` bytes, authenticating each sector as it is entered.
    private func fill<Channel: CardChannel>(
        _ bytes: inout [UInt8], to count: Int, area: ClassicNDEFArea, session: inout ClassicSession<Channel>
    ) async throws {
        while bytes.count < count {
            let block = area.blocks[bytes.count / 16]
            let sector = MifareClassicModel.sector(ofBlock: block)
            guard try await session.authenticate(sector: sector, key: .a, slot: 1) else {
                throw NFCTagError(
                    .authenticationFailed, offset: block * 16,
                    "\(session.cardName) sector \(sector) (block \(block), byte \(block * 16)) refused the NDEF key A D3F7D3F7D3F7, though the MAD marks it NDEF"
                )
            }
            bytes += try await session.read(block: block)
        }
    }
}
