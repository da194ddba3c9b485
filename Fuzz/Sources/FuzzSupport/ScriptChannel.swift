/// A card that answers each command with the next length-prefixed chunk of the fuzz input, and is "removed"
/// (throws) when the input runs out. Counts commands and the answer bytes it handed out.
///
/// Used from one task at a time only (the reader under test awaits each exchange), hence `@unchecked`.
public final class ScriptChannel: @unchecked Sendable {
    private var input: FuzzInput
    /// The commands received, in order.
    public private(set) var commands: [[UInt8]] = []
    /// The answers given, in order.
    public private(set) var answers: [[UInt8]] = []

    /// Creates a card answering from `input`.
    public init(_ input: FuzzInput) {
        self.input = input
    }

    /// The error thrown when the script has run out.
    public struct Removed: Error {}

    /// Answers one command.
    public func answer(_ command: [UInt8]) throws -> [UInt8] {
        commands.append(command)
        guard let chunk = input.chunk() else { throw Removed() }
        answers.append(chunk)
        return chunk
    }

    /// The data bytes (status words excluded) of every answer.
    public var dataBytesAnswered: Int {
        answers.reduce(0) { $0 + max(0, $1.count - 2) }
    }
}
