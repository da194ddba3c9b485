/// An error from pcsc-lite, carrying the failing call, the reader (when there is one) and the pcsc-lite code.
///
/// Its description is one sentence naming the reader, the call, the code by name and number, and what it means:
/// `reader "Virtual PCD 00 00": SCardTransmit failed with SCARD_W_REMOVED_CARD (0x80100069): the card was removed`.
public struct PCSCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pcsc-lite call that failed, such as `SCardConnect`.
    public var call: String
    /// The reader the call was about, if any.
    public var reader: String?
    /// The pcsc-lite return code.
    public var code: UInt32

    /// Creates an error.
    /// - Parameters:
    ///   - call: the failing pcsc-lite call.
    ///   - reader: the reader name, if any.
    ///   - code: the pcsc-lite return code.
    public init(call: String, reader: String? = nil, code: UInt32) {
        self.call = call
        self.reader = reader
        self.code = code
    }

    /// The code's pcsc-lite name and number, such as `SCARD_W_REMOVED_CARD (0x80100069)`.
    public var codeDescription: String {
        let hex = String(code, radix: 16, uppercase: true)
        let number = "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        if let name = PCSCError.names[code] {
            return "\(name) (\(number))"
        }
        return "unknown code (\(number))"
    }

    /// One sentence: `reader "Virtual PCD 00 00": SCardConnect failed with SCARD_W_REMOVED_CARD (0x80100069): the
    /// card was removed`, followed by how to fix an access refusal when pcscd refused this user.
    public var description: String {
        var sentence = ""
        if let reader {
            sentence += "reader \"\(reader)\": "
        }
        sentence += "\(call) failed with \(codeDescription)"
        if let meaning = PCSCError.meanings[code] {
            sentence += ": \(meaning)"
        }
        if isAccessRefused {
            sentence += "; " + PCSCError.polkitHint
        }
        return sentence
    }

    /// How to fix a refusal by a polkit-enabled pcscd.
    public static let polkitHint =
        "pcscd refused this user: if pcscd uses polkit, grant org.debian.pcsc-lite.access_pcsc and "
        + "org.debian.pcsc-lite.access_card to this user (see contrib/polkit)"
}
