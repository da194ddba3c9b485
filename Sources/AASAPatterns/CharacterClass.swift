/// The predefined one-character classes of AASA patterns: `$(alpha)`, `$(upper)`, `$(lower)`, `$(alnum)`,
/// `$(digit)`, `$(xdigit)`.
public enum CharacterClass: String, Sendable, Hashable, CaseIterable {
    case alpha, upper, lower, alnum, digit, xdigit

    /// Whether `scalar` belongs to the class.
    public func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .alpha: scalar.properties.isAlphabetic
        case .upper: scalar.properties.isUppercase
        case .lower: scalar.properties.isLowercase
        case .alnum: scalar.properties.isAlphabetic || Self.isDigit(scalar)
        case .digit: Self.isDigit(scalar)
        case .xdigit: scalar.isASCII && scalar.properties.isASCIIHexDigit
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .decimalNumber
    }
}
