/// Reads the NDEF message of an NFC Forum Type 3 tag (FeliCa Lite-S, FeliCa Standard issued with the NDEF system
/// `12FC`) with Read Without Encryption, through whichever FeliCa path the reader offers (docs/tags.md, "Type 3
/// tags"; ``FeliCaTransport``).
///
/// The IDm is the UID `FF CA` gave (8 bytes); without it the card is polled for system `12FC` first. Block 0 of
/// service `000B` is the attribute block (checksum verified); then the Ln bytes of the message from block 1, as
/// many blocks per command as Nbr allows (at most 12). A FeliCa Lite-S with a 40-byte message takes two reads.
public struct Type3Reader: Sendable {
    /// Creates a reader.
    public init() {}

    /// Reads the NDEF content.
    /// - Parameters:
    ///   - channel: the channel to the card.
    ///   - atr: the card's ATR (it picks the reader path).
    ///   - idm: the IDm from `FF CA`, if the reader gave 8 bytes.
    /// - Returns: `.message`, `.empty` (Ln 0) or `.absent` (the card did not answer for the NDEF system).
    /// - Throws: `NFCTagError`: `tagRemoved`, `malformedCapabilityContainer` (attribute block, naming the byte),
    ///   `unexpectedStatus` (an APDU refused, or SF1/SF2 naming the blocks and byte offset), `unexpectedResponse`.
    public func read(from channel: some CardChannel, atr: [UInt8], idm: [UInt8]?) async throws -> TagReading.Content {
        guard var card = try await Type3Card.open(channel: channel, atr: atr, idm: idm) else { return .absent }
        var block0: [UInt8]
        do {
            block0 = try await card.read(blocks: 0..<1, channel: channel)
        } catch let error as NFCTagError where card.lastStatusFlags?.sf2 == 0xA6 && idm != nil {
            // No service 000B under the current system (a FeliCa Standard card): ask for the NDEF system by
            // Polling, whose answer carries that system's IDm; no answer means no NDEF.
            guard var polled = try await Type3Card.open(channel: channel, atr: atr, idm: nil) else { return .absent }
            guard polled.idm != card.idm else { throw error }
            block0 = try await polled.read(blocks: 0..<1, channel: channel)
            card = polled
        }
        // A factory FeliCa Lite-S (NDEF system not enabled) has block 0 all zeros: not NDEF formatted.
        guard block0.contains(where: { $0 != 0 }) else { return .absent }
        let attribute = try Type3AttributeBlock(block0[...])
        guard attribute.length > 0 else { return .empty }
        let blockCount = (attribute.length + 15) / 16
        let perCommand = min(attribute.maxReadBlocks, Type3Card.maxBlocksPerCommand)
        var message: [UInt8] = []
        message.reserveCapacity(blockCount * 16)
        var block = 1
        while block <= blockCount {
            let end = min(block + perCommand, blockCount + 1)
            message += try await card.read(blocks: block..<end, channel: channel)
            block = end
        }
        return .message(Array(message.prefix(attribute.length)))
    }
}

/// One FeliCa card through the reader: its IDm and the transport, with checked reads and writes of the NDEF
/// service.
struct Type3Card {
    /// The most blocks asked for in one command, so that a response fits a short APDU.
    static let maxBlocksPerCommand = 12

    /// The card's IDm.
    let idm: [UInt8]
    /// The reader path.
    var transport: FeliCaTransport
    /// The status flags of the last command that answered an error.
    private(set) var lastStatusFlags: (sf1: UInt8, sf2: UInt8)?

    /// Takes the IDm from `FF CA`, or polls for the NDEF system when there is none.
    /// - Returns: nil when polling found no card with the NDEF system.
    static func open(channel: some CardChannel, atr: [UInt8], idm: [UInt8]?) async throws -> Type3Card? {
        var transport = FeliCaTransport(atr: atr)
        if let idm, idm.count == 8 { return Type3Card(idm: idm, transport: transport) }
        let response: [UInt8]
        do {
            response = try await transport.exchange(
                FeliCaFrame.polling(), what: "Polling for system 12FC", channel: channel)
        } catch let error as NFCTagError where error.code == .unexpectedResponse {
            return nil  // no answer for system 12FC: not an NDEF card
        }
        _ = try FeliCaFrame.check(response[...], answering: 0x00, idm: nil, what: "Polling for system 12FC")
        return Type3Card(idm: Array(response[2..<10]), transport: transport)
    }

    /// Reads `blocks` of the NDEF service.
    /// - Returns: 16 bytes per block.
    mutating func read(blocks: Range<Int>, channel: some CardChannel) async throws -> [UInt8] {
        let what = "Read Without Encryption of \(Self.name(blocks))"
        let response = try await transport.exchange(
            FeliCaFrame.read(idm: idm, blocks: blocks), what: what, channel: channel)
        let parameters = try FeliCaFrame.check(response[...], answering: 0x06, idm: idm, what: what).parameters
        try checkStatus(parameters, blocks: blocks, what: what)
        let base = parameters.startIndex
        guard parameters.count == 3 + 16 * blocks.count, Int(parameters[base + 2]) == blocks.count else {
            throw NFCTagError(
                .unexpectedResponse, offset: blocks.lowerBound * 16,
                "FeliCa \(what) at byte \(blocks.lowerBound * 16) answered \(max(0, parameters.count - 3)) data bytes, \(16 * blocks.count) expected"
            )
        }
        return Array(parameters.dropFirst(3))
    }

    /// Writes `data` (16 bytes per block) to `blocks` of the NDEF service.
    mutating func write(blocks: Range<Int>, data: [UInt8], channel: some CardChannel) async throws {
        let what = "Write Without Encryption of \(Self.name(blocks))"
        let response = try await transport.exchange(
            FeliCaFrame.write(idm: idm, blocks: blocks, data: data), what: what, channel: channel)
        let parameters = try FeliCaFrame.check(response[...], answering: 0x08, idm: idm, what: what).parameters
        try checkStatus(parameters, blocks: blocks, what: what)
    }

    /// SF1 SF2: `00 00` or an error naming them and the byte offset of the first block.
    private mutating func checkStatus(_ parameters: ArraySlice<UInt8>, blocks: Range<Int>, what: String) throws {
        guard parameters.count >= 2 else {
            throw NFCTagError(.unexpectedResponse, "FeliCa \(what) answered without status flags")
        }
        let base = parameters.startIndex
        guard parameters[base] == 0x00 else {
            lastStatusFlags = (parameters[base], parameters[base + 1])
            throw NFCTagError(
                .unexpectedStatus, offset: blocks.lowerBound * 16,
                "FeliCa \(what) at byte \(blocks.lowerBound * 16) answered SF1 \(CommandName.hex(parameters[base...base])) SF2 \(CommandName.hex(parameters[(base + 1)...(base + 1)]))\(Self.meaning(parameters[base + 1]))"
            )
        }
    }

    /// What a status flag 2 means, as far as it is documented.
    private static func meaning(_ sf2: UInt8) -> String {
        switch sf2 {
        case 0xA6: " (no such service)"
        case 0xA8: " (block number out of range)"
        case 0xA2: " (wrong block count)"
        default: ""
        }
    }

    /// `block 0` or `blocks 1-3`.
    static func name(_ blocks: Range<Int>) -> String {
        blocks.count == 1 ? "block \(blocks.lowerBound)" : "blocks \(blocks.lowerBound)-\(blocks.upperBound - 1)"
    }
}
