import TestSupport

/// Test data shared by the NFCTag tests.
enum Fixtures {
    /// An NDEF message of exactly `length` bytes: one URI record `https://example.com/aaa…` (short record when
    /// the payload fits one byte, else a long record).
    static func uriMessage(length: Int) -> [UInt8] {
        let short = length - 4 <= 255
        let payloadLength = length - (short ? 4 : 7)
        let path = Array("example.com/".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: payloadLength - 13)
        let payload: [UInt8] = [0x04] + path
        precondition(payload.count == payloadLength)
        if short { return [0xD1, 0x01, UInt8(payloadLength), 0x55] + payload }
        let n = payloadLength
        return [0xC1, 0x01, UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), 0x55]
            + payload
    }

    /// The ATR an ACR122U synthesises for an NTAG21x.
    static let ntagATR = Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68")
    /// A phone doing host card emulation.
    static let phoneATR = Hex.bytes("3B 80 80 01 01")
    /// `FF CA 00 00 00`.
    static let getUID = Hex.bytes("FF CA 00 00 00")
    /// A 7-byte NTAG UID with `90 00`.
    static let uidResponse = Hex.bytes("04 A1 B2 C3 D4 E5 80 90 00")

    /// `FF B0 00 <page> <le>`.
    static func readPage(_ page: Int, _ le: Int = 16) -> [UInt8] {
        [0xFF, 0xB0, UInt8(page >> 8), UInt8(page & 0xFF), UInt8(le)]
    }

    /// An NTAG213 data area `01 03 A0 0C 34 03 <len> <message> FE`.
    static func ntag213DataArea(message: [UInt8]) -> [UInt8] {
        [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, UInt8(message.count)] + message + [0xFE]
    }

    /// The NTAG213 CC `E1 10 12 00`.
    static let ntag213CC = Hex.bytes("E1 10 12 00")
}
