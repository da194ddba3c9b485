import NDEF

/// Hex text typed or piped by a user: digits in any case, with spaces, tabs, colons, dashes and newlines
/// between them.
public enum HexInput {
    /// Why hex text was refused.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// The sentence shown to the user.
        public var description: String
    }

    /// Parses hex text.
    /// - Parameter text: the hex digits and separators.
    /// - Returns: the bytes.
    /// - Throws: ``Failure`` naming the character offset of a character that is not a hex digit or separator, or
    ///   the digit count when it is odd.
    public static func bytes(_ text: String) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        var digits = 0
        for (offset, character) in text.enumerated() {
            if character == " " || character == ":" || character == "-" || character.isNewline || character == "\t" {
                continue
            }
            guard let value = character.hexDigitValue, character.isASCII else {
                throw Failure(
                    description:
                        "hex input: \(quoted(character)) at character \(offset) is not a hex digit "
                        + "(digits may be separated by spaces, colons, dashes or newlines)")
            }
            digits += 1
            if let first = high {
                bytes.append(first << 4 | UInt8(value))
                high = nil
            } else {
                high = UInt8(value)
            }
        }
        guard high == nil else {
            throw Failure(description: "hex input: \(digits) hex digits is an odd count; every byte needs two")
        }
        return bytes
    }

    /// The character in quotes, control characters escaped.
    private static func quoted(_ character: Character) -> String {
        "'" + PrintableText.line(String(character)) + "'"
    }
}
