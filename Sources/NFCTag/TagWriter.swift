/// Writes one NDEF message to one presented card, safely, and reads it back: the entry point of
/// `tagrouter write` (docs/cli.md; how each kind is written: docs/tags.md, "How a tag is written").
public struct TagWriter: Sendable {
    /// The Type 2 writer used for Ultralight / NTAG cards.
    public var type2 = Type2Writer()
    /// The Type 4 writer used for ISO 14443-4 cards.
    public var type4 = Type4Writer()
    /// The Type 5 writer used for ISO 15693 cards.
    public var type5 = Type5Writer()
    /// The Type 3 writer used for FeliCa cards.
    public var type3 = Type3Writer()
    /// The reader used to read the tag back.
    public var reader = TagReader()

    /// Creates a writer with default settings.
    public init() {}

    /// Writes `message`, makes the tag read-only when `lock` is set, reads the tag back and compares.
    ///
    /// The ATR picks the writer. Refusals (read-only, too small, an unknown kind, a lock that cannot be done)
    /// come before the first write command, so the tag is untouched; a tag taken away during the write holds
    /// its old message, an empty one or the new one.
    /// - Parameters:
    ///   - message: the raw NDEF message bytes; empty writes an empty message.
    ///   - atr: the card's ATR as the reader reports it.
    ///   - channel: the channel to the card.
    ///   - lock: make the tag permanently read-only after writing.
    /// - Returns: what was done.
    /// - Throws: `NFCTagError`: `unsupportedCard` (Type 1, a card without NDEF, a Type 4 lock),
    ///   `readOnly`, `insufficientCapacity`, `verificationFailed` (the read-back differs, or the UID changed),
    ///   and what the writers and the reader throw (`tagRemoved`, …); `CancellationError`.
    public func write(
        _ message: [UInt8], atr: [UInt8], channel: some CardChannel, lock: Bool = false
    ) async throws -> TagWriteResult {
        let info = ATRInfo(atr: atr)
        guard let technology = info.technology else {
            let name = info.storageCard.map { "\($0.name)" } ?? "card"
            throw NFCTagError(.unsupportedCard, "\(name) with ATR \(CommandName.hex(atr[...])) cannot be written")
        }
        let counting = CountingChannel(channel)
        var uid = try await reader.readUID(channel: counting)
        var capacity: Int?
        let written: TagTechnology
        switch technology {
        case .type2:
            capacity = try await type2.write(message, to: counting)
            if lock { try await type2.lock(counting) }
            written = .type2
        case .iso14443Part4, .type4:
            if lock { try await type4.lock(counting) }
            capacity = try await type4.write(message, to: counting)
            written = .type4
        case .mifareClassic:
            // The card name tells a 1K from a 4K or a Mini; a factory-fresh card is formatted for it.
            let classic = MifareClassicWriter(card: info.storageCard?.name ?? .mifareClassic1K)
            try await classic.write(message, to: counting)
            if lock { try await classic.lock(counting) }
            written = .mifareClassic
        case .type5:
            try await type5.write(message, to: counting)
            if lock { try await type5.lock(counting) }
            // FF CA gives an ISO 15693 UID least significant byte first; the reader shows it reversed.
            uid = uid.map { $0.reversed() }
            written = .type5
        case .felica:
            try await type3.write(message, to: counting, atr: atr)
            if lock { try await type3.lock(counting, atr: atr) }
            written = .felica
        case .type1:
            throw NFCTagError(.unsupportedCard, "writing Type 1 (Topaz) tags is not supported: they are read only")
        }
        let reading: TagReading
        do {
            reading = try await reader.read(atr: atr, channel: counting)
        } catch let error as NFCTagError where error.code != .tagRemoved {
            throw NFCTagError(.verificationFailed, offset: error.offset, "the tag read back fails: \(error.message)")
        }
        let expected: TagReading.Content = message.isEmpty ? .empty : .message(message)
        guard reading.content == expected else {
            throw NFCTagError(
                .verificationFailed,
                "the tag read back \(Self.describe(reading.content)) after \(message.count) bytes were written")
        }
        guard reading.uid == uid else {
            throw NFCTagError(.verificationFailed, "the tag read back has another UID: a different tag was presented")
        }
        return TagWriteResult(
            uid: uid, technology: written, bytesWritten: message.count, capacity: capacity,
            commands: counting.commands, isLocked: lock)
    }

    /// A short description of read-back content for the verification error.
    private static func describe(_ content: TagReading.Content) -> String {
        switch content {
        case .message(let bytes): "a \(bytes.count)-byte message that differs"
        case .empty: "an empty message"
        case .absent: "no NDEF"
        }
    }
}
