/// Writing to a card that is already NDEF formatted.
extension MifareClassicWriter {
    /// An NDEF-formatted card as its MAD describes it.
    struct FormattedLayout {
        /// The model, from the writer or the MAD.
        var model: MifareClassicModel
        /// The NDEF area.
        var area: ClassicNDEFArea
        /// The GPB of sector 0 (bit 7 DA, bits 1-0 the MAD version), if it could be read.
        var sector0GPB: UInt8?
        /// Whether sector 16 holds a valid MAD2.
        var hasMAD2 = false
    }

    /// Reads the MAD (and MAD2 on a 4K) with the MAD key loaded in slot 0.
    /// - Returns: the layout, or nil when the card has no valid MAD (factory fresh, or keys unknown).
    func formattedLayout<Channel: CardChannel>(session: inout ClassicSession<Channel>) async throws
        -> FormattedLayout?
    {
        guard let mad1 = try await session.readMAD(.mad1) else { return nil }
        let gpb = try await session.readIfAllowed(block: 3).map { $0[9] }
        let model =
            model
            ?? (gpb.map { $0 & 0x03 == 0x02 } == true
                ? .classic4K
                : mad1.aids[4...].allSatisfy { $0 == MAD.notApplicableAID } ? .mini : .classic1K)
        var area = ClassicNDEFArea(sectors: mad1.ndefSectors.filter { $0 < model.sectorCount })
        var hasMAD2 = false
        if model == .classic4K, let mad2 = try await session.readMAD(.mad2) {
            area.append(sectors: mad2.ndefSectors)
            hasMAD2 = true
        }
        return FormattedLayout(model: model, area: area, sector0GPB: gpb, hasMAD2: hasMAD2)
    }

    /// Checks every sector the message needs, then writes it safely and reads it back.
    func writeFormatted<Channel: CardChannel>(
        _ message: [UInt8], layout: FormattedLayout, session: inout ClassicSession<Channel>
    ) async throws {
        let name = layout.model.displayName
        let area = layout.area
        try Self.checkCapacity(message, areaSize: area.size, cardName: name)
        let writes = Self.blockWrites(Self.tlv(message), area: area)
        try await loadKey(ClassicKey.ndef, slot: 1, session: &session)
        var checked = Set<Int>()
        for (block, _) in writes {
            let sector = MifareClassicModel.sector(ofBlock: block)
            guard checked.insert(sector).inserted else { continue }
            try await checkWritable(sector: sector, cardName: name, session: &session)
        }
        try await writeSafely(writes, slot: 1, cardName: name, session: &session)
        try await verify(writes, slot: 1, cardName: name, session: &session)
    }

    /// Refuses, before anything is written, a sector whose GPB or access bits forbid key A to write its data.
    func checkWritable<Channel: CardChannel>(sector: Int, cardName: String, session: inout ClassicSession<Channel>)
        async throws
    {
        try await authenticateNDEF(sector: sector, cardName: cardName, session: &session)
        let trailerBlock = MifareClassicModel.trailerBlock(ofSector: sector)
        let trailer = try await session.read(block: trailerBlock)
        let bits = Array(trailer[6..<9])
        let place = "\(cardName) sector \(sector) (trailer block \(trailerBlock), byte \(trailerBlock * 16))"
        guard let access = ClassicAccessBits(bits) else {
            throw NFCTagError(
                .readOnly, offset: trailerBlock * 16 + 6,
                "\(place) has inconsistent access bits \(CommandName.hex(bits[...], separator: " ")): the sector is blocked"
            )
        }
        guard (0..<3).allSatisfy({ access.canWrite(group: $0, with: .a) }) else {
            throw NFCTagError(
                .readOnly, offset: trailerBlock * 16 + 6,
                "\(place) is read-only: access bits \(CommandName.hex(bits[...], separator: " ")) do not let key A write its data blocks"
            )
        }
        guard trailer[9] & 0x03 == 0 else {
            throw NFCTagError(
                .readOnly, offset: trailerBlock * 16 + 9,
                "\(place) is read-only: its GPB \(CommandName.hex(trailer[9])) has write access bits \(trailer[9] & 0x03 == 3 ? "11" : "not 00")"
            )
        }
    }

    /// Authenticates an NDEF sector with the NDEF key in slot 1, naming the sector when the card refuses.
    func authenticateNDEF<Channel: CardChannel>(sector: Int, cardName: String, session: inout ClassicSession<Channel>)
        async throws
    {
        guard try await session.authenticate(sector: sector, key: .a, slot: 1) else {
            let block = MifareClassicModel.authenticationBlock(ofSector: sector)
            throw NFCTagError(
                .authenticationFailed, offset: block * 16,
                "\(cardName) sector \(sector) (block \(block)) refused the NDEF key A D3F7D3F7D3F7, though the MAD marks it NDEF"
            )
        }
    }

    /// Writes the TLV blocks: the first with length 0, the rest, then the first with the real length (a
    /// single block is written once, which is atomic).
    func writeSafely<Channel: CardChannel>(
        _ writes: [(block: Int, data: [UInt8])], slot: UInt8, cardName: String,
        session: inout ClassicSession<Channel>
    ) async throws {
        let first = writes[0]
        if writes.count > 1 {
            for (index, write) in writes.enumerated() {
                try await authenticateNDEF(
                    sector: MifareClassicModel.sector(ofBlock: write.block), cardName: cardName, session: &session)
                try await session.write(block: write.block, index == 0 ? Self.emptied(write.data) : write.data)
            }
        }
        try await authenticateNDEF(
            sector: MifareClassicModel.sector(ofBlock: first.block), cardName: cardName, session: &session)
        try await session.write(block: first.block, first.data)
    }

    /// Reads every written block back and compares.
    func verify<Channel: CardChannel>(
        _ writes: [(block: Int, data: [UInt8])], slot: UInt8, cardName: String,
        session: inout ClassicSession<Channel>
    ) async throws {
        for (block, data) in writes {
            try await authenticateNDEF(
                sector: MifareClassicModel.sector(ofBlock: block), cardName: cardName, session: &session)
            let read = try await session.read(block: block)
            guard read == data else {
                throw NFCTagError(
                    .verificationFailed, offset: block * 16,
                    "\(cardName) block \(block) (byte \(block * 16)) reads back \(CommandName.hex(read[...])) after writing \(CommandName.hex(data[...]))"
                )
            }
        }
    }
}
