public import ArgumentParser

/// Which readers `--reader` picks: a pattern with `*` (any run of characters) and `?` (one character) matched
/// against the whole name, or, without wildcards, any reader whose name contains the text.
public struct ReaderPattern: Sendable, ExpressibleByArgument {
    /// The pattern as given.
    public let text: String

    /// Creates a pattern.
    /// - Parameter text: the pattern as given.
    public init(text: String) {
        self.text = text
    }

    /// Creates a pattern from its `--reader` argument.
    /// - Parameter argument: the pattern as given.
    public init(argument: String) {
        self.init(text: argument)
    }

    /// Whether the reader's name matches.
    public func matches(_ reader: String) -> Bool {
        guard text.contains("*") || text.contains("?") else {
            return reader.contains(text)
        }
        return Self.glob(Array(text), Array(reader))
    }

    /// Iterative wildcard match with backtracking to the last `*`: linear in practice, never exponential.
    private static func glob(_ pattern: [Character], _ name: [Character]) -> Bool {
        var p = 0
        var n = 0
        var star: Int?
        var resume = 0
        while n < name.count {
            if p < pattern.count && (pattern[p] == "?" || pattern[p] == name[n]) {
                p += 1
                n += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p
                resume = n
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                n = resume
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" {
            p += 1
        }
        return p == pattern.count
    }
}
