/// How FeliCa frames reach the card through a PC/SC reader (docs/tags.md, "Type 3 tags"); readers have no
/// common form:
///
/// - `pn532`: ACR122U (ATR card name `F0 11`/`F0 12`): `FF 00 00 00 Lc D4 40 01 <frame>` → `D5 41 00 <response>
///   90 00` (InDataExchange; `D5 41 01` is a timeout).
/// - `direct`: ACR1252U, ACM1252U, ACR3x (ATR standard `11`): `FF 00 00 00 Lc <frame>` → `<response> 90 00`.
/// - `felicaCommands`: Identiv uTrust/CLOUD 3700 F: `FF 46` (read) and `FF 48` (write) with the service and block
///   list, answered `IDm SF1 SF2 [n data] 90 00`. Taken when `direct` is refused.
struct FeliCaTransport {
    /// The reader paths.
    enum Path: Equatable {
        case pn532, direct, felicaCommands
    }

    /// The path in use.
    private(set) var path: Path
    /// Whether the path may still fall back from `direct` to `felicaCommands`.
    private var mayFallBack: Bool
    /// How many APDUs were sent.
    private(set) var commandCount = 0

    /// Picks the path from the ATR: ACS's FeliCa card names mean a PN532; anything else starts `direct`.
    init(atr: [UInt8]) {
        let name = ATRInfo(atr: atr).storageCard?.name
        if name == .felica212K || name == .felica424K {
            path = .pn532
            mayFallBack = false
        } else {
            path = .direct
            mayFallBack = true
        }
    }

    /// Sends one FeliCa frame and returns the response frame (length byte first).
    /// - Throws: `NFCTagError`: `tagRemoved`, `unexpectedStatus` naming the APDU and status, `unexpectedResponse`
    ///   for a PN532 error or timeout status.
    mutating func exchange(_ frame: [UInt8], what: String, channel: some CardChannel) async throws -> [UInt8] {
        switch path {
        case .pn532:
            let command =
                [0xFF, 0x00, 0x00, 0x00, UInt8(truncatingIfNeeded: frame.count + 3), 0xD4, 0x40, 0x01] + frame
            let response = try await send(command, channel: channel)
            guard response.isSuccess else { throw failure(command, response, what: what) }
            let data = response.data
            guard data.count >= 3, data.prefix(2).elementsEqual([0xD5, 0x41]) else {
                throw NFCTagError(
                    .unexpectedResponse,
                    "FeliCa \(what) through the PN532 (\(Self.header(command))) answered \(CommandName.hex(data.prefix(3))), not D5 41"
                )
            }
            guard data[data.startIndex + 2] == 0x00 else {
                let status = data[data.startIndex + 2]
                let meaning = status == 0x01 ? " (timeout: the card did not answer)" : ""
                throw NFCTagError(
                    .unexpectedResponse,
                    "FeliCa \(what) through the PN532 (\(Self.header(command))) answered status \(CommandName.hex(status))\(meaning)"
                )
            }
            return Array(data.dropFirst(3))
        case .direct:
            let command = [0xFF, 0x00, 0x00, 0x00, UInt8(truncatingIfNeeded: frame.count)] + frame
            let response = try await send(command, channel: channel)
            if response.isSuccess {
                mayFallBack = false
                return Array(response.data)
            }
            guard mayFallBack else { throw failure(command, response, what: what) }
            path = .felicaCommands
            mayFallBack = false
            return try await exchange(frame, what: what, channel: channel)
        case .felicaCommands:
            return try await felicaCommand(frame, what: what, channel: channel)
        }
    }

    /// `FF 46`/`FF 48` for a Read/Write Without Encryption frame; the answer is rebuilt as a response frame so the
    /// callers check one shape. Polling is not sent this way.
    private mutating func felicaCommand(
        _ frame: [UInt8], what: String, channel: some CardChannel
    ) async throws -> [UInt8] {
        // frame: LEN code IDm(8) nsvc svc(2×nsvc) nblk elements [data]
        let code = frame[1]
        guard code == 0x06 || code == 0x08 else {
            throw NFCTagError(
                .unexpectedResponse, "FeliCa \(what) cannot be sent to a reader that refuses FF 00 and takes FF 46")
        }
        let idm = Array(frame[2..<10])
        let serviceCount = Int(frame[10])
        let services = Array(frame[11..<(11 + 2 * serviceCount)])
        let blockCount = Int(frame[11 + 2 * serviceCount])
        var elements: [UInt8] = []
        var index = 12 + 2 * serviceCount
        for _ in 0..<blockCount {
            // The 2-byte block number of each element, big-endian, as the FF 46 list takes it.
            if frame[index] & 0x80 != 0 {
                elements += [0x00, frame[index + 1]]
                index += 2
            } else {
                elements += [frame[index + 2], frame[index + 1]]
                index += 3
            }
        }
        let data = Array(frame[index...])
        let instruction: UInt8 = code == 0x06 ? 0x46 : 0x48
        let body = services + elements + data
        let command =
            [0xFF, instruction, UInt8(serviceCount), UInt8(blockCount), UInt8(truncatingIfNeeded: body.count)] + body
        let response = try await send(command, channel: channel)
        guard response.isSuccess else { throw failure(command, response, what: what) }
        // IDm SF1 SF2 [n data] → LEN code+1 IDm SF1 SF2 [n data]
        let answer = Array(response.data)
        guard answer.count >= 10, answer.prefix(8).elementsEqual(idm) else {
            throw NFCTagError(
                .unexpectedResponse,
                "FeliCa \(what) (\(Self.header(command))) answered \(answer.count) bytes without the card's IDm")
        }
        return FeliCaFrame.framed([code + 1] + answer)
    }

    private mutating func send(_ command: [UInt8], channel: some CardChannel) async throws -> ResponseAPDU {
        commandCount += 1
        return try await channel.exchange(command)
    }

    private func failure(_ command: [UInt8], _ response: ResponseAPDU, what: String) -> NFCTagError {
        let sw = CommandName.hex(response.bytes[(response.bytes.count - 2)...], separator: " ")
        return NFCTagError(.unexpectedStatus, "FeliCa \(what) (\(Self.header(command))) answered status \(sw)")
    }

    /// The APDU's first bytes, for messages: `FF 00 00 00 10 …`.
    static func header(_ command: [UInt8]) -> String {
        CommandName.hex(command.prefix(5), separator: " ") + (command.count > 5 ? " …" : "")
    }
}
