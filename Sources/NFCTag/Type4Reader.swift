/// Reads the NDEF message of an NFC Forum Type 4 tag (ISO-DEP: DESFire, NTAG 424, phones in card emulation)
/// with ISO 7816-4 SELECT and READ BINARY (docs/tags.md, "Type 4 tags"; NFC Forum Type 4 Tag specification).
///
/// Sequence: select the NDEF application (mapping v2 AID, then v1), select and read the CC file, select the
/// NDEF file, then read NLEN and the message. NLEN is folded into the first read (offset 0, as many bytes as
/// MLe and the file allow), so a message that fits one response costs one READ BINARY.
public struct Type4Reader: Sendable {
    /// The largest message accepted, in bytes. Short READ BINARY addresses offsets up to 32767.
    public var maxMessageSize: Int

    /// Creates a reader.
    /// - Parameter maxMessageSize: the largest NDEF message accepted (at most 32767 − 4 is reachable).
    public init(maxMessageSize: Int = 0x7FFF - 4) {
        self.maxMessageSize = maxMessageSize
    }

    /// Reads the NDEF content.
    /// - Parameter channel: the channel to the card.
    /// - Returns: nil when the card has no NDEF application (neither AID selects), else `.message` or `.empty`
    ///   (NLEN 0).
    /// - Throws: `NFCTagError`: `tagRemoved` (never a partial message), `malformedCapabilityContainer`,
    ///   `malformedNDEFFile` (NLEN past the file's maximum size), `readAccessDenied`, `messageTooLarge`,
    ///   `unexpectedStatus` (naming the command and status word), `unexpectedResponse`.
    public func read(from channel: some CardChannel) async throws -> TagReading.Content? {
        var selectV2: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        var isVersion1 = false
        if try await !channel.exchange(selectV2).isSuccess {
            // Mapping v1.0: the v1 AID, no Le; its files are selected with P2 = 00 (nfcpy tt4.py).
            selectV2[11] = 0x00
            selectV2.removeLast()
            guard try await channel.exchange(selectV2).isSuccess else { return nil }
            isVersion1 = true
        }
        let p2: UInt8 = isVersion1 ? 0x00 : 0x0C
        _ = try await channel.exchangeExpectingSuccess([0x00, 0xA4, 0x00, p2, 0x02, 0xE1, 0x03])

        var ccBytes = Array(try await channel.exchangeExpectingSuccess([0x00, 0xB0, 0x00, 0x00, 0x0F]).data)
        if ccBytes.count >= 15, ccBytes[7] == 0x06, ccBytes.count < 17,
            Int(ccBytes[0]) << 8 | Int(ccBytes[1]) >= 17
        {
            let rest = [0x00, 0xB0, 0x00, UInt8(ccBytes.count), UInt8(17 - ccBytes.count)]
            ccBytes += try await channel.exchangeExpectingSuccess(rest).data
        }
        let cc = try Type4CapabilityContainer(ccBytes)
        let fileName = CommandName.hex(cc.fileID[...])
        guard cc.readAccess == 0x00 else {
            throw NFCTagError(
                .readAccessDenied,
                "Type 4 NDEF file \(fileName): read access \(CommandName.hex(cc.readAccess)) forbids reading")
        }
        _ = try await channel.exchangeExpectingSuccess([0x00, 0xA4, 0x00, p2, 0x02, cc.fileID[0], cc.fileID[1]])
        return try await readFile(cc: cc, fileName: fileName, channel: channel)
    }

    /// Reads NLEN and the message from the selected NDEF file.
    private func readFile(
        cc: Type4CapabilityContainer, fileName: String, channel: some CardChannel
    ) async throws -> TagReading.Content {
        let chunk = min(cc.maxResponseData, 255)
        let nlenSize = cc.nlenSize
        let first = try await readBinary(offset: 0, count: min(chunk, cc.maxFileSize), channel: channel)
        guard first.count >= nlenSize else {
            throw NFCTagError(
                .unexpectedResponse, offset: 0,
                "Type 4 NDEF file \(fileName): READ BINARY offset 0 answered \(first.count) bytes, NLEN is \(nlenSize)")
        }
        var nlen = 0
        for byte in first.prefix(nlenSize) { nlen = nlen << 8 | Int(byte) }
        guard nlen > 0 else { return .empty }
        guard nlen <= cc.maxFileSize - nlenSize else {
            throw NFCTagError(
                .malformedNDEFFile, offset: 0,
                "Type 4 NDEF file \(fileName) at byte 0: NLEN \(nlen) exceeds the file's maximum size \(cc.maxFileSize) minus the \(nlenSize)-byte NLEN"
            )
        }
        guard nlen <= maxMessageSize, nlenSize + nlen <= 0x8000 else {
            throw NFCTagError(
                .messageTooLarge, offset: 0,
                "Type 4 NDEF file \(fileName) at byte 0: NLEN \(nlen) is larger than the \(maxMessageSize) bytes accepted"
            )
        }
        var message: [UInt8] = []
        message.reserveCapacity(nlen)
        message.append(contentsOf: first.dropFirst(nlenSize).prefix(nlen))
        while message.count < nlen {
            let data = try await readBinary(
                offset: nlenSize + message.count, count: min(chunk, nlen - message.count), channel: channel)
            message.append(contentsOf: data.prefix(nlen - message.count))
        }
        return .message(message)
    }

    /// One READ BINARY; accepts `90 00`, or `62 82` (end of file reached) with data.
    /// - Returns: the data, at least one byte.
    private func readBinary(offset: Int, count: Int, channel: some CardChannel) async throws -> ArraySlice<UInt8> {
        let command: [UInt8] = [0x00, 0xB0, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(count)]
        let response = try await channel.exchange(command)
        guard response.isSuccess || (response.status == 0x6282 && response.dataCount > 0) else {
            throw CommandName.unexpectedStatus(command, response)
        }
        guard response.dataCount > 0 else {
            throw NFCTagError(.unexpectedResponse, offset: offset, "\(CommandName.describe(command)) answered no data")
        }
        return response.data
    }
}
