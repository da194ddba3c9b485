/// Writes an NDEF message to an NFC Forum Type 2 tag (MIFARE Ultralight, NTAG21x) with the PC/SC
/// `FF D6 00 <page> 04 <data>` UPDATE BINARY, one page per command, in the order of ``Type2WritePlan``: a tag
/// taken away after any command holds its old message, an empty one or the new one (docs/tags.md, "How a tag
/// is written").
///
/// Before writing it reads page 2 onwards (the static lock bytes, the CC and the first data-area bytes), then as
/// far as the TLVs before the NDEF TLV need, and refuses, having written nothing, a tag that is not NDEF
/// formatted, whose CC forbids writing or whose lock bits are set, and a message larger than the tag.
public struct Type2Writer: Sendable {
    /// Creates a writer.
    public init() {}

    /// Writes `message` safely. The caller reads the tag back to verify it (``TagWriter`` does).
    /// - Parameters:
    ///   - message: the raw NDEF message bytes; empty writes an empty NDEF message.
    ///   - channel: the channel to the tag.
    /// - Returns: the most bytes a message may have on this tag.
    /// - Throws: `NFCTagError`: `readOnly` (CC access, static or dynamic lock bits), `insufficientCapacity`
    ///   (naming both sizes), `malformedCapabilityContainer` (including a tag that is not NDEF formatted),
    ///   `malformedTLV`, `tagRemoved`, `unexpectedStatus`, `unexpectedResponse`.
    @discardableResult
    public func write(_ message: [UInt8], to channel: some CardChannel) async throws -> Int {
        var pages = PageReader()
        let (pageTwo, cc, dataArea) = try await readHeader(&pages, channel: channel)
        guard cc.isWritable else {
            throw NFCTagError(
                .readOnly, offset: 15,
                "Type 2 capability container at byte 15: access \(CommandName.hex(cc.access)) makes the tag read-only"
            )
        }
        guard pageTwo[2] & 0xF8 == 0, pageTwo[3] == 0 else {
            throw NFCTagError(
                .readOnly, offset: 10,
                "Type 2 static lock bytes at byte 10 are \(CommandName.hex(pageTwo[2..<4])): pages of the tag are locked"
            )
        }
        var known = dataArea
        let plan: Type2WritePlan
        while true {
            switch try Type2WritePlan.make(message: message, known: known, dataAreaSize: cc.dataAreaSize) {
            case .need(let count):
                try await pages.fill(&known, to: count, size: cc.dataAreaSize, channel: channel)
                continue
            case .plan(let made):
                plan = made
            }
            break
        }
        // Pages past 15 are locked by the dynamic lock bits: read them when the plan reaches there.
        if plan.writes.contains(where: { $0.page >= 16 }) {
            for area in plan.layout.dynamicLockAreas {
                let bytes = try await readBytes(area.byteAddresses, pages: &pages, channel: channel)
                if let set = bytes.firstIndex(where: { $0 != 0 }) {
                    let address = area.address + set
                    throw NFCTagError(
                        .readOnly, offset: address,
                        "Type 2 dynamic lock byte at byte \(address) is \(CommandName.hex(bytes[set])): pages of the tag are locked"
                    )
                }
            }
        }
        for write in plan.writes {
            _ = try await channel.exchangeExpectingSuccess(write.command)
        }
        return plan.layout.capacity
    }

    /// Makes the tag permanently read-only: the CC access byte `0F`, then every dynamic lock bit (where Lock
    /// Control TLVs say, or the NFC Forum default place), then the static lock bytes `FF FF`; each read back.
    /// - Parameter channel: the channel to the tag.
    /// - Throws: `NFCTagError`: `verificationFailed` when a lock byte or the CC does not read back as written,
    ///   `malformedCapabilityContainer`, `malformedTLV`, `tagRemoved`, `unexpectedStatus`, `unexpectedResponse`.
    public func lock(_ channel: some CardChannel) async throws {
        var pages = PageReader()
        let (pageTwo, cc, dataArea) = try await readHeader(&pages, channel: channel)
        var known = dataArea
        let layout: Type2DataAreaLayout
        while true {
            switch try Type2DataAreaLayout.walk(known, dataAreaSize: cc.dataAreaSize) {
            case .need(let count):
                try await pages.fill(&known, to: count, size: cc.dataAreaSize, channel: channel)
                continue
            case .layout(let found):
                layout = found
            }
            break
        }
        var locked = cc
        locked.access = 0x0F
        if cc.access != 0x0F { _ = try await channel.exchangeExpectingSuccess(Self.writeCommand(3, locked.bytes)) }
        var lockPages: [Int: [UInt8]] = [:]
        for area in layout.dynamicLockAreas {
            for (offset, address) in area.byteAddresses.enumerated() {
                let page = address / 4
                if lockPages[page] == nil {
                    lockPages[page] = Array(try await pages.read(page: page, limit: 4, channel: channel).prefix(4))
                }
                let remaining = area.bits - offset * 8
                lockPages[page]?[address % 4] |= remaining >= 8 ? 0xFF : UInt8((1 << remaining) - 1)
            }
        }
        for (page, bytes) in lockPages.sorted(by: { $0.key < $1.key }) {
            _ = try await channel.exchangeExpectingSuccess(Self.writeCommand(page, bytes))
        }
        _ = try await channel.exchangeExpectingSuccess(Self.writeCommand(2, [pageTwo[0], pageTwo[1], 0xFF, 0xFF]))

        var check = Array(try await pages.read(page: 2, limit: 8, channel: channel))
        if check.count < 8 { check += try await pages.read(page: 3, limit: 4, channel: channel) }
        guard check[2] == 0xFF, check[3] == 0xFF, check[7] == 0x0F else {
            throw NFCTagError(
                .verificationFailed, offset: 10,
                "Type 2 tag did not keep its lock: static lock bytes read back \(CommandName.hex(check[2..<4])), CC access \(CommandName.hex(check[7]))"
            )
        }
        for (page, bytes) in lockPages.sorted(by: { $0.key < $1.key }) {
            let back = Array(try await pages.read(page: page, limit: 4, channel: channel).prefix(4))
            guard back == bytes else {
                throw NFCTagError(
                    .verificationFailed, offset: page * 4,
                    "Type 2 tag did not keep its dynamic lock bits: page \(page) reads back \(CommandName.hex(back[...])), \(CommandName.hex(bytes[...])) written"
                )
            }
        }
    }

    /// Reads pages 2 and 3 (and the data-area bytes the reader returns with them).
    /// - Returns: page 2 (bytes 2-3 are the static lock bytes), the CC, and the data area's first bytes.
    private func readHeader(
        _ pages: inout PageReader, channel: some CardChannel
    ) async throws -> (pageTwo: [UInt8], cc: Type2CapabilityContainer, dataArea: [UInt8]) {
        var header = Array(try await pages.read(page: 2, limit: 16, channel: channel))
        if header.count < 8 { header += try await pages.read(page: 3, limit: 16, channel: channel) }
        guard let cc = try Type2CapabilityContainer(header[4..<8]) else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 12,
                "Type 2 capability container at byte 12 is \(CommandName.hex(header[4..<8])), not E1…: the tag is not NDEF formatted"
            )
        }
        return (Array(header[0..<4]), cc, Array(header.dropFirst(8).prefix(cc.dataAreaSize)))
    }

    /// Reads the tag bytes at `addresses` (outside the data area too), 16 bytes per read where the reader allows.
    private func readBytes(
        _ addresses: Range<Int>, pages: inout PageReader, channel: some CardChannel
    ) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        var page = addresses.lowerBound / 4
        while page * 4 < addresses.upperBound {
            let limit = min(16, (addresses.upperBound - page * 4 + 3) / 4 * 4)
            let data = try await pages.read(page: page, limit: limit, channel: channel)
            for (offset, byte) in data.enumerated() where addresses.contains(page * 4 + offset) { bytes.append(byte) }
            page += data.count / 4
        }
        return bytes
    }

    /// `FF D6 00 <page> 04 <bytes>`.
    static func writeCommand(_ page: Int, _ bytes: [UInt8]) -> [UInt8] {
        [0xFF, 0xD6, UInt8(page >> 8), UInt8(page & 0xFF), 0x04] + bytes
    }
}
