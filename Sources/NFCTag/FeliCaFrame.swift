/// FeliCa frames (docs/tags.md, "Type 3 tags"): a length byte counting itself, a command code, the card's IDm,
/// the parameters. Service codes go little-endian; a block element is `80 bb` below block 256, else `00 lo hi`.
enum FeliCaFrame {
    /// The NDEF system code.
    static let ndefSystem: UInt16 = 0x12FC
    /// The NDEF read-only service (`000B`) and read/write service (`0009`).
    static let readService: UInt16 = 0x000B
    static let writeService: UInt16 = 0x0009

    /// Polling for `system`, no request data: `06 00 <system BE> 00 00` → `LEN 01 IDm PMm`.
    static func polling(system: UInt16 = ndefSystem) -> [UInt8] {
        [0x06, 0x00, UInt8(system >> 8), UInt8(system & 0xFF), 0x00, 0x00]
    }

    /// The block list elements of `blocks`.
    static func elements(_ blocks: Range<Int>) -> [UInt8] {
        blocks.flatMap { block -> [UInt8] in
            block < 256 ? [0x80, UInt8(block)] : [0x00, UInt8(block & 0xFF), UInt8(truncatingIfNeeded: block >> 8)]
        }
    }

    /// Read Without Encryption of `blocks` of the read service: `LEN 06 IDm 01 0B 00 n <elements>`.
    static func read(idm: [UInt8], blocks: Range<Int>) -> [UInt8] {
        framed(
            [0x06] + idm + [0x01, UInt8(readService & 0xFF), UInt8(readService >> 8), UInt8(blocks.count)]
                + elements(blocks))
    }

    /// Write Without Encryption of `data` (16 bytes per block) to `blocks`:
    /// `LEN 08 IDm 01 09 00 n <elements> <data>`.
    static func write(idm: [UInt8], blocks: Range<Int>, data: [UInt8]) -> [UInt8] {
        framed(
            [0x08] + idm + [0x01, UInt8(writeService & 0xFF), UInt8(writeService >> 8), UInt8(blocks.count)]
                + elements(blocks) + data)
    }

    /// Puts the length byte in front.
    static func framed(_ body: [UInt8]) -> [UInt8] { [UInt8(truncatingIfNeeded: body.count + 1)] + body }

    /// A response frame checked against the command it answers: length, response code (command + 1), IDm.
    struct Response {
        /// The bytes after the IDm.
        var parameters: ArraySlice<UInt8>
    }

    /// Checks a response frame.
    /// - Parameters:
    ///   - frame: the frame, length byte first.
    ///   - code: the command code it answers.
    ///   - idm: the IDm it must carry (nil for Polling, which carries the IDm it reports).
    ///   - what: names the command for errors.
    /// - Throws: `NFCTagError.unexpectedResponse` naming what is wrong and its byte offset in the frame.
    static func check(_ frame: ArraySlice<UInt8>, answering code: UInt8, idm: [UInt8]?, what: String)
        throws(NFCTagError) -> Response
    {
        guard frame.count >= 10 else {
            throw NFCTagError(
                .unexpectedResponse, "FeliCa \(what) answered a \(frame.count)-byte frame, at least 10 expected")
        }
        let base = frame.startIndex
        guard Int(frame[base]) == frame.count else {
            throw NFCTagError(
                .unexpectedResponse,
                "FeliCa \(what) answered a frame whose length byte (byte 0) says \(frame[base]), \(frame.count) bytes came"
            )
        }
        guard frame[base + 1] == code &+ 1 else {
            throw NFCTagError(
                .unexpectedResponse,
                "FeliCa \(what) answered response code \(CommandName.hex(frame[base + 1])) at byte 1, \(CommandName.hex(code &+ 1)) expected"
            )
        }
        if let idm, !frame[(base + 2)..<(base + 10)].elementsEqual(idm) {
            throw NFCTagError(
                .unexpectedResponse,
                "FeliCa \(what) answered for IDm \(CommandName.hex(frame[(base + 2)..<(base + 10)])) at byte 2, not the card's \(CommandName.hex(idm[...]))"
            )
        }
        return Response(parameters: frame[(base + 10)...])
    }
}
