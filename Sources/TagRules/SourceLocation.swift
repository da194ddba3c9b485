/// A place in a rules file.
public struct SourceLocation: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The file name as loaded.
    public var file: String
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int

    /// Creates a location.
    /// - Parameters:
    ///   - file: the file name.
    ///   - line: the line.
    ///   - column: the column.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`.
    public var description: String { "\(file):\(line):\(column)" }
}
