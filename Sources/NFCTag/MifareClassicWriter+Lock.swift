/// Making an NDEF-formatted card read-only.
extension MifareClassicWriter {
    /// Makes an NDEF-formatted card read-only: every NDEF sector gets `D3F7D3F7D3F7 078F0F 43 FFFFFFFFFFFF`,
    /// the MAD sectors `A0A1A2A3A4A5 078F0F <GPB> FFFFFFFFFFFF` (data readable with key A, never written;
    /// trailers frozen for good). Sectors already read-only are left as they are.
    ///
    /// Changing a trailer needs key B, which is not public: formatters (NFC Tools, Android) write
    /// `FFFFFFFFFFFF`, and that is the only key B tried. A card whose key B is something else cannot be made
    /// read-only: the first sector refuses and nothing is changed. Each trailer is read back after writing.
    /// - Parameter channel: the channel to the card.
    /// - Throws: `NFCTagError`: `unsupportedCard` for a card with no MAD or no NDEF sector (not NDEF
    ///   formatted: write a message first); `authenticationFailed` when a sector refuses key B `FFFFFFFFFFFF`,
    ///   saying which sectors were already made read-only; `verificationFailed`; `tagRemoved`,
    ///   `unexpectedStatus`, `unexpectedResponse`; `CancellationError`.
    public func lock(_ channel: some CardChannel) async throws {
        var session = ClassicSession(channel: channel, cardName: model?.displayName ?? "MIFARE Classic card")
        try await loadKey(ClassicKey.mad, slot: 0, session: &session)
        guard let layout = try await formattedLayout(session: &session), !layout.area.sectors.isEmpty else {
            throw NFCTagError(
                .unsupportedCard,
                "\(session.cardName) has no MAD with NDEF sectors (it is not NDEF formatted): write a message first, which formats it, then make it read-only"
            )
        }
        let name = layout.model.displayName
        let gpb = layout.sector0GPB ?? (layout.model == .classic4K ? 0xC2 : 0xC1)
        let sectors = layout.area.sectors + (layout.hasMAD2 ? [16] : []) + [0]
        try await loadKey(ClassicKey.factory, slot: 1, session: &session)
        var locked: [Int] = []
        for sector in sectors {
            let trailerBlock = MifareClassicModel.trailerBlock(ofSector: sector)
            guard try await session.authenticate(sector: sector, key: .b, slot: 1) else {
                let done =
                    locked.isEmpty
                    ? "so it cannot be made read-only; nothing was changed"
                    : "sectors \(locked.map(String.init).joined(separator: ", ")) are read-only now, the others not"
                throw NFCTagError(
                    .authenticationFailed, offset: trailerBlock * 16,
                    "making this \(name) read-only needs its key B, and sector \(sector) refuses key B FFFFFFFFFFFF (the one NFC Tools and Android write when formatting): its key B is unknown, \(done)"
                )
            }
            let current = try await session.read(block: trailerBlock)
            if Array(current[6..<9]) == ClassicAccessBits.readOnly.encoded { continue }
            let trailer =
                sector == 0 || sector == 16
                ? ClassicTrailer.mad(gpb: gpb, isReadOnly: true) : ClassicTrailer.ndef(isReadOnly: true)
            try await session.write(block: trailerBlock, trailer)
            let readBack = try await session.read(block: trailerBlock)
            guard readBack[6..<10] == trailer[6..<10] else {
                throw NFCTagError(
                    .verificationFailed, offset: trailerBlock * 16 + 6,
                    "\(name) sector \(sector) trailer (block \(trailerBlock)) reads back access bits and GPB \(CommandName.hex(readBack[6..<10], separator: " ")) after writing \(CommandName.hex(trailer[6..<10], separator: " "))"
                )
            }
            session.forgetAuthentication()
            locked.append(sector)
        }
    }
}
