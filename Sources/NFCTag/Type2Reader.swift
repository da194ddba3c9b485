/// Reads the NDEF message of an NFC Forum Type 2 tag (MIFARE Ultralight, NTAG21x) with the PC/SC
/// `FF B0 00 <page> <Le>` READ BINARY, in as few reads as the NDEF length allows.
///
/// The first read is page 3 (the CC and the first 12 TLV bytes); then pages are read only as far as the TLV
/// walk needs. Each read asks for 16 bytes (less near the end of the data area, never past it) and advances by
/// whatever multiple of 4 came back, so readers returning one page per read (Identiv uTrust) work; a read
/// answered `6C xx`, `67 00` or `63 00` is retried with Le 4, and Le 4 is kept for the rest of the read.
public struct Type2Reader: Sendable {
    /// Creates a reader.
    public init() {}

    /// Reads the NDEF content.
    ///
    /// A tag whose CC magic is not `E1` (a blank Ultralight has `00 00 00 00` at page 3) is not NDEF
    /// formatted: `.absent`. A CC that forbids reading throws `readAccessDenied`.
    /// - Parameter channel: the channel to the tag.
    /// - Returns: `.message`, `.empty` (NDEF TLV of length 0) or `.absent` (no NDEF TLV, or not formatted).
    /// - Throws: `NFCTagError`: `tagRemoved` (never a partial message), `malformedCapabilityContainer`,
    ///   `malformedTLV` (with the tag byte address), `unexpectedStatus`, `unexpectedResponse`,
    ///   `readAccessDenied`.
    public func read(from channel: some CardChannel) async throws -> TagReading.Content {
        var pages = PageReader()
        let first = try await pages.read(page: 3, limit: 16, channel: channel)
        guard let cc = try Type2CapabilityContainer(first.prefix(4)) else { return .absent }
        guard cc.isReadable else {
            throw NFCTagError(
                .readAccessDenied, offset: 15,
                "Type 2 capability container at byte 15: access \(CommandName.hex(cc.access)) forbids reading")
        }
        let size = cc.dataAreaSize
        var dataArea: [UInt8] = []
        dataArea.reserveCapacity(size)
        dataArea.append(contentsOf: first.dropFirst(4).prefix(size))

        var walker = Type2TLVWalker(dataAreaSize: size)
        while true {
            switch try walker.step(dataArea, available: dataArea.count) {
            case .need(let count):
                try await pages.fill(&dataArea, to: count, size: size, channel: channel)
            case .noNDEF:
                return .absent
            case .ndef(_, _, length: 0):
                return .empty
            case .ndef(let start, let end, _):
                try await pages.fill(&dataArea, to: end, size: size, channel: channel)
                return .message(walker.value(dataArea, start: start, end: end))
            }
        }
    }
}

/// Issues READ BINARY page by page, remembering when the reader needs Le 4 (the Type 2 reader and writer).
struct PageReader {
    /// The Le to ask for: 16, or 4 once the reader refused 16.
    private var le = 16

    /// Reads data-area pages until `dataArea` holds `count` bytes (the data area starts at page 4).
    mutating func fill(
        _ dataArea: inout [UInt8], to count: Int, size: Int, channel: some CardChannel
    ) async throws {
        while dataArea.count < count {
            let page = 4 + dataArea.count / 4
            let bytes = try await read(page: page, limit: size - dataArea.count, channel: channel)
            dataArea.append(contentsOf: bytes.prefix(size - dataArea.count))
        }
    }

    /// Reads from `page`, asking for at most `limit` bytes (a multiple of 4).
    /// - Returns: the data, a non-zero multiple of 4 bytes.
    mutating func read(page: Int, limit: Int, channel: some CardChannel) async throws -> ArraySlice<UInt8> {
        while true {
            let length = min(le, limit)
            let command: [UInt8] = [0xFF, 0xB0, UInt8(page >> 8), UInt8(page & 0xFF), UInt8(length)]
            let response = try await channel.exchange(command)
            let status = response.status
            if status == 0x9000 {
                let count = response.dataCount
                guard count > 0, count % 4 == 0 else {
                    throw NFCTagError(
                        .unexpectedResponse,
                        "\(CommandName.describe(command)) answered \(count) bytes, not a non-zero multiple of 4")
                }
                return response.data
            }
            let refusesLength = status >> 8 == 0x6C || status == 0x6700 || status == 0x6300
            guard refusesLength, length > 4 else { throw CommandName.unexpectedStatus(command, response) }
            le = 4
        }
    }
}
