/// Reads one presented card: its UID, its technology (from the ATR) and its NDEF content. This is the entry
/// point the PC/SC layer, the CLI and the router call.
public struct TagReader: Sendable {
    /// The Type 2 reader used for Ultralight / NTAG cards.
    public var type2 = Type2Reader()
    /// The Type 4 reader used for ISO 14443-4 cards.
    public var type4 = Type4Reader()
    /// The reader used for MIFARE Classic 1K, 4K and Mini cards.
    public var classic = MifareClassicReader()
    /// The Type 5 reader used for ISO 15693 cards.
    public var type5 = Type5Reader()
    /// The Type 3 reader used for FeliCa cards.
    public var type3 = Type3Reader()
    /// The Type 1 reader used for Topaz cards.
    public var type1 = Type1Reader()

    /// Creates a reader with default settings.
    public init() {}

    /// Reads a card.
    ///
    /// The UID comes from `FF CA 00 00 00`; a status other than `90 00` leaves it nil (not fatal). The ATR
    /// picks the protocol: Type 2 tags are read as such; ISO 14443-4 cards are asked for the Type 4 NDEF
    /// application (technology `type4` when present, `iso14443-4` with `.absent` when not). MIFARE Classic
    /// cards are read through their MAD (`.absent` when not NDEF formatted: a door fob). Type 5, FeliCa and
    /// Topaz cards are read by ``Type5Reader`` (the UID shown reversed, `E0 04 …`), ``Type3Reader`` (the UID is
    /// the IDm) and ``Type1Reader``.
    /// - Parameters:
    ///   - atr: the card's ATR as the reader reports it.
    ///   - channel: the channel to the card.
    /// - Returns: the reading; never a partial message.
    /// - Throws: `NFCTagError` (see `Type2Reader.read(from:)`, `Type4Reader.read(from:)`,
    ///   `MifareClassicReader.read(from:card:)`, `Type5Reader.read(from:)`, `Type3Reader.read(from:atr:idm:)` and
    ///   `Type1Reader.read(from:)`), `unsupportedCard` for a storage card this module cannot read (ISO 14443B-3
    ///   cards); `CancellationError`.
    public func read(atr: [UInt8], channel: some CardChannel) async throws -> TagReading {
        let info = ATRInfo(atr: atr)
        guard let technology = info.technology else {
            let name = info.storageCard.map { "\($0.name)" } ?? "card"
            throw NFCTagError(.unsupportedCard, "\(name) with ATR \(CommandName.hex(atr[...])) cannot be read")
        }
        let uid = try await readUID(channel: channel)
        switch technology {
        case .type2:
            return TagReading(uid: uid, technology: .type2, content: try await type2.read(from: channel))
        case .iso14443Part4, .type4:
            guard let content = try await type4.read(from: channel) else {
                return TagReading(uid: uid, technology: .iso14443Part4, content: .absent)
            }
            return TagReading(uid: uid, technology: .type4, content: content)
        case .mifareClassic:
            let card = info.storageCard?.name ?? .mifareClassic1K
            return TagReading(
                uid: uid, technology: technology, content: try await classic.read(from: channel, card: card))
        case .type5:
            // FF CA gives the ISO 15693 UID least significant byte first; it is shown `E0 04 …`, as phones do.
            return TagReading(
                uid: uid.map { $0.reversed() }, technology: .type5, content: try await type5.read(from: channel))
        case .felica:
            let content = try await type3.read(from: channel, atr: atr, idm: uid)
            return TagReading(uid: uid, technology: .felica, content: content)
        case .type1:
            return TagReading(uid: uid, technology: .type1, content: try await type1.read(from: channel))
        }
    }

    /// Gets the UID with `FF CA 00 00 00`.
    /// - Returns: the UID, or nil when the reader refuses or returns no bytes.
    /// - Throws: `NFCTagError.tagRemoved` when the channel fails.
    func readUID(channel: some CardChannel) async throws -> [UInt8]? {
        let response = try await channel.exchange([0xFF, 0xCA, 0x00, 0x00, 0x00])
        guard response.isSuccess, response.dataCount > 0 else { return nil }
        return Array(response.data)
    }
}
