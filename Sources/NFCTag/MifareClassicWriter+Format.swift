/// Formatting a factory-fresh card for NDEF (AOSP `rw_mfc.cc` `RW_MfcFormatNDef`, as NFC Tools does).
extension MifareClassicWriter {
    /// What a sector holds before formatting.
    private enum SectorState {
        /// Factory key A `FFFFFFFFFFFF`, trailer rewritable with it.
        case factory
        /// Already an NDEF sector (a format that was interrupted).
        case ndef
    }

    /// Surveys every sector (nothing is written if one refuses), then writes the NDEF sectors, MAD2 on a 4K,
    /// and sector 0's MAD last, then the message's first block with its real length, and reads back.
    func format<Channel: CardChannel>(with message: [UInt8], session: inout ClassicSession<Channel>) async throws {
        let model = model ?? .classic1K
        let name = model.displayName
        try Self.checkCapacity(message, areaSize: model.ndefCapacity, cardName: name)
        let area = ClassicNDEFArea(sectors: model.ndefSectors)
        let writes = Self.blockWrites(Self.tlv(message), area: area)

        try await loadKey(ClassicKey.factory, slot: 0, session: &session)
        var states: [SectorState] = []
        for sector in 0..<model.sectorCount {
            states.append(try await survey(sector: sector, model: model, session: &session))
        }

        for sector in Array(1..<model.sectorCount) + [0] {
            let trailerBlock = MifareClassicModel.trailerBlock(ofSector: sector)
            let blocks = writes.enumerated().filter { MifareClassicModel.sector(ofBlock: $0.element.block) == sector }
            if states[sector] == .ndef {
                guard !blocks.isEmpty else { continue }
                try await authenticateNDEF(sector: sector, cardName: name, session: &session)
            } else {
                try await authenticateFactory(sector: sector, cardName: name, session: &session)
            }
            switch sector {
            case 0:
                try await session.write(block: 1, Array(ClassicTrailer.mad1(for: model).encoded[0..<16]))
                try await session.write(block: 2, Array(ClassicTrailer.mad1(for: model).encoded[16..<32]))
            case 16:
                let mad2 = ClassicTrailer.mad2.encoded
                for index in 0..<3 {
                    try await session.write(block: 64 + index, Array(mad2[(index * 16)..<(index * 16 + 16)]))
                }
            default:
                for (index, write) in blocks {
                    let emptyFirst = index == 0 && writes.count > 1
                    try await session.write(block: write.block, emptyFirst ? Self.emptied(write.data) : write.data)
                }
            }
            guard states[sector] == .factory else { continue }
            let gpb: UInt8 = model == .classic4K ? 0xC2 : 0xC1
            let trailer =
                sector == 0 || sector == 16 ? ClassicTrailer.mad(gpb: gpb) : ClassicTrailer.ndef()
            try await session.write(block: trailerBlock, trailer)
            session.forgetAuthentication()
        }

        try await loadKey(ClassicKey.ndef, slot: 1, session: &session)
        if writes.count > 1 {
            let first = writes[0]
            try await authenticateNDEF(
                sector: MifareClassicModel.sector(ofBlock: first.block), cardName: name, session: &session)
            try await session.write(block: first.block, first.data)
        }
        try await verify(writes, slot: 1, cardName: name, session: &session)
    }

    /// Finds out whether a sector takes the factory key (and lets it rewrite the trailer) or is already NDEF.
    private func survey<Channel: CardChannel>(
        sector: Int, model: MifareClassicModel, session: inout ClassicSession<Channel>
    ) async throws -> SectorState {
        let name = model.displayName
        let trailerBlock = MifareClassicModel.trailerBlock(ofSector: sector)
        if try await session.authenticate(sector: sector, key: .a, slot: 0) {
            let trailer = try await session.read(block: trailerBlock)
            let bits = Array(trailer[6..<9])
            if let access = ClassicAccessBits(bits), (0..<3).allSatisfy({ access.canWrite(group: $0, with: .a) }),
                access.canWriteKeyA(with: .a), access.canWriteAccessBits(with: .a), access.canWriteKeyB(with: .a)
            {
                return .factory
            }
            throw NFCTagError(
                .readOnly, offset: trailerBlock * 16 + 6,
                "\(name) sector \(sector) (trailer block \(trailerBlock)) takes the factory key, but its access bits \(CommandName.hex(bits[...], separator: " ")) do not let key A rewrite it: the card cannot be formatted for NDEF; nothing was written"
            )
        }
        if sector != 0, sector != 16 {
            try await loadKey(ClassicKey.ndef, slot: 1, session: &session)
            if try await session.authenticate(sector: sector, key: .a, slot: 1) {
                try await checkWritable(sector: sector, cardName: name, session: &session)
                return .ndef
            }
        }
        let hint =
            self.model == nil && sector == 5
            ? " (a MIFARE Classic Mini has 5 sectors: give the writer the ATR's card name)" : ""
        throw NFCTagError(
            .authenticationFailed, offset: trailerBlock * 16,
            "\(name) sector \(sector) refuses the factory key A FFFFFFFFFFFF\(sector == 0 ? " and the MAD key A0A1A2A3A4A5" : sector == 16 ? "" : " and the NDEF key D3F7D3F7D3F7"): its keys are unknown, so it cannot be formatted for NDEF\(hint); nothing was written"
        )
    }

    /// Authenticates a sector with the factory key in slot 0.
    private func authenticateFactory<Channel: CardChannel>(
        sector: Int, cardName: String, session: inout ClassicSession<Channel>
    ) async throws {
        guard try await session.authenticate(sector: sector, key: .a, slot: 0) else {
            let block = MifareClassicModel.authenticationBlock(ofSector: sector)
            throw NFCTagError(
                .authenticationFailed, offset: block * 16,
                "\(cardName) sector \(sector) (block \(block)) refused the factory key A FFFFFFFFFFFF while being formatted"
            )
        }
    }
}
