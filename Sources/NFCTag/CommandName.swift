import NDEF

/// Names commands and status words for error messages; only called on the error path.
package enum CommandName {
    /// A short human name for a command APDU, e.g. `READ BINARY page 7` or `SELECT file E103`.
    /// - Parameter command: the command APDU.
    /// - Returns: the name.
    package static func describe(_ command: [UInt8]) -> String {
        guard command.count >= 4 else { return "command \(hex(command[...]))" }
        let p1p2 = Int(command[2]) << 8 | Int(command[3])
        switch (command[0], command[1]) {
        case (0xFF, 0xCA): return "GET UID"
        case (0xFF, 0xB0): return "READ BINARY page \(p1p2)"
        case (0x00, 0xA4) where command.count >= 5:
            let end = min(command.count, 5 + Int(command[4]))
            let target = hex(command[5..<end])
            return command[2] == 0x04 ? "SELECT application \(target)" : "SELECT file \(target)"
        case (0x00, 0xB0):
            let length = command.count >= 5 ? Int(command[4]) : 0
            return "READ BINARY offset \(p1p2) length \(length == 0 ? 256 : length)"
        case (0xFF, 0xD6): return "UPDATE BINARY page \(p1p2)"
        case (0x00, 0xD6):
            let length = command.count >= 5 ? Int(command[4]) : 0
            return "UPDATE BINARY offset \(p1p2) length \(length)"
        case (0x90, 0x60): return "GetVersion"
        case (0x90, 0xAF): return "AdditionalFrame"
        case (0x90, 0x71) where command.count >= 6: return "AuthenticateEV2First key \(command[5])"
        case (0x90, 0x8D): return "WriteData"
        case (0x90, 0xF5): return "GetFileSettings"
        case (0x90, 0x5F): return "ChangeFileSettings"
        case (0x90, 0xC4) where command.count >= 6: return "ChangeKey \(command[5])"
        default: return "command \(hex(command[...]))"
        }
    }

    /// The error for a command that answered a status word other than the one required.
    package static func unexpectedStatus(_ command: [UInt8], _ response: ResponseAPDU) -> NFCTagError {
        let sw = hex(response.bytes[(response.bytes.count - 2)...], separator: " ")
        return NFCTagError(.unexpectedStatus, "\(describe(command)) answered status \(sw)")
    }

    /// Uppercase hex of some bytes.
    package static func hex(_ bytes: ArraySlice<UInt8>, separator: String = "") -> String {
        HexText.string(bytes, uppercase: true, separator: separator)
    }

    /// `0x` and two uppercase hex digits of one byte.
    package static func hex(_ byte: UInt8) -> String { HexText.byte(byte) }
}
