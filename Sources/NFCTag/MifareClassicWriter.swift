/// Writes an NDEF message to a MIFARE Classic 1K, 4K or Mini card, formatting a factory-fresh card first the way
/// NFC Tools and Android do, and makes such cards read-only (docs/tags.md, "Writing MIFARE Classic").
///
/// The message goes into one NDEF TLV at the start of the NDEF area. Writing is safe against a card leaving at
/// any command: the block holding the TLV's tag and length is written first with length 0, then the other
/// blocks and the terminator, then that block again with the real length, so the card always holds the old
/// message, an empty one or the new one. Every NDEF sector is authenticated with key A `D3F7D3F7D3F7`; what was
/// written is read back and compared before `write` returns.
public struct MifareClassicWriter: Sendable {
    /// The card's model when known (from the ATR); a factory-fresh card cannot tell its size, and is formatted
    /// as a 1K when this is nil. An NDEF-formatted card tells it through its MAD.
    public var model: MifareClassicModel?

    /// Creates a writer that learns the model from the card (a factory-fresh card is formatted as a 1K).
    public init() {
        model = nil
    }

    /// Creates a writer for the card an ATR names.
    /// - Parameter card: the ATR's card name; one that is not a MIFARE Classic leaves the model unknown.
    public init(card: ATRInfo.CardName) {
        model = MifareClassicModel(cardName: card)
    }

    /// Writes an NDEF message, formatting the card for NDEF first when it is factory fresh.
    ///
    /// An NDEF-formatted card (MAD with `03 E1` sectors) is checked first and left untouched when it refuses:
    /// an NDEF sector GPB whose write bits are not `00`, access bits that do not let key A write the data
    /// blocks, a message larger than the area. A card without a MAD must take the factory key `FFFFFFFFFFFF` in
    /// every sector (sectors already carrying the NDEF key, from an interrupted format, are kept); its sectors
    /// get the NDEF trailer `D3F7D3F7D3F7 7F0788 40 FFFFFFFFFFFF`, sector 0 the MAD last, so an interrupted
    /// format leaves a card that still reads as not NDEF formatted.
    /// - Parameters:
    ///   - message: the raw NDEF message bytes (empty writes an empty NDEF TLV).
    ///   - channel: the channel to the card.
    /// - Throws: `NFCTagError`: `insufficientCapacity` naming the message size and the room there is;
    ///   `readOnly` naming the sector and what forbids writing; `authenticationFailed` when a sector takes
    ///   neither the expected key (unknown keys: not a card this writer can format); `verificationFailed` when a
    ///   block reads back different; `tagRemoved`, `unexpectedStatus`, `unexpectedResponse`;
    ///   `CancellationError`.
    public func write(_ message: [UInt8], to channel: some CardChannel) async throws {
        var session = ClassicSession(channel: channel, cardName: model?.displayName ?? "MIFARE Classic card")
        try await loadKey(ClassicKey.mad, slot: 0, session: &session)
        if let layout = try await formattedLayout(session: &session) {
            try await writeFormatted(message, layout: layout, session: &session)
        } else {
            try await format(with: message, session: &session)
        }
    }

    /// The NDEF TLV holding `message`, with its terminator: `03 L` (or `03 FF L1 L2` from 255 bytes) `… FE`.
    static func tlv(_ message: [UInt8]) -> [UInt8] {
        let header: [UInt8] =
            message.count < 0xFF
            ? [0x03, UInt8(message.count)]
            : [0x03, 0xFF, UInt8(message.count >> 8 & 0xFF), UInt8(message.count & 0xFF)]
        return header + message + [0xFE]
    }

    /// The largest message an area of `size` bytes takes: size − 2 or 4 bytes of TLV header − 1 terminator.
    static func largestMessage(inAreaOf size: Int) -> Int {
        size - 3 < 0xFF ? max(size - 3, 0) : max(size - 5, 0xFE)
    }

    /// Throws `insufficientCapacity` when the message does not fit an area of `size` bytes.
    static func checkCapacity(_ message: [UInt8], areaSize size: Int, cardName: String) throws {
        guard tlv(message).count > size else { return }
        throw NFCTagError(
            .insufficientCapacity,
            "a \(message.count)-byte NDEF message does not fit this \(cardName): its \(size)-byte NDEF area holds a message of at most \(largestMessage(inAreaOf: size)) bytes"
        )
    }

    /// Loads a key, failing when the reader refuses.
    func loadKey<Channel: CardChannel>(_ key: [UInt8], slot: UInt8, session: inout ClassicSession<Channel>)
        async throws
    {
        guard try await session.load(key, slot: slot) else {
            throw NFCTagError(
                .unexpectedStatus, "the reader refused MIFARE Classic LOAD KEY slot \(slot): it cannot write this card")
        }
    }

    /// The blocks `bytes` (padded with zeros to whole blocks) go to, and their contents, in area order.
    static func blockWrites(_ bytes: [UInt8], area: ClassicNDEFArea) -> [(block: Int, data: [UInt8])] {
        let count = (bytes.count + 15) / 16
        let padded = bytes + [UInt8](repeating: 0, count: count * 16 - bytes.count)
        return (0..<count).map { (area.blocks[$0], Array(padded[($0 * 16)..<($0 * 16 + 16)])) }
    }

    /// The first TLV block with its length zeroed: what is written first, so a torn write leaves an empty message.
    static func emptied(_ first: [UInt8]) -> [UInt8] {
        var first = first
        if first[1] == 0xFF {
            first[2] = 0
            first[3] = 0
        } else {
            first[1] = 0
        }
        return first
    }
}
