public import NFCTag
import Synchronization
public import Testing

/// A `CardChannel` that plays a fixed script of command → response pairs, as nfcpy's tests do.
///
/// It records every command sent, records a test issue (at the test's source location) for a command that
/// differs from the script or comes after its end, and can fail the exchange at a given index as a removed tag
/// does.
public final class ScriptedChannel: CardChannel {
    /// The error thrown when the script says the tag leaves.
    public struct Removed: Error, CustomStringConvertible {
        /// The index of the command that failed.
        public var index: Int
        /// Says where the tag left.
        public var description: String { "scripted removal at command \(index)" }
    }

    /// The error thrown for a command the script did not expect.
    public struct Unexpected: Error {}

    /// The expected exchanges.
    public let script: [(command: [UInt8], response: [UInt8])]
    /// The index of the command that throws `Removed` instead of answering, if any.
    public let removalIndex: Int?
    private let sourceLocation: SourceLocation
    private let log = Mutex<[[UInt8]]>([])

    /// Creates a channel.
    /// - Parameters:
    ///   - script: the expected commands and their responses, in order (hex via `Hex.bytes` is handy).
    ///   - removalIndex: the command index at which the tag leaves (the command is recorded, then throws).
    ///   - sourceLocation: where unexpected commands are reported.
    public init(
        _ script: [(command: [UInt8], response: [UInt8])], removalIndex: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.script = script
        self.removalIndex = removalIndex
        self.sourceLocation = sourceLocation
    }

    /// Creates a channel from hex strings.
    /// - Parameters:
    ///   - hexScript: pairs of hex command and hex response.
    ///   - removalIndex: the command index at which the tag leaves.
    ///   - sourceLocation: where unexpected commands are reported.
    public convenience init(
        hex hexScript: [(String, String)], removalIndex: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.init(
            hexScript.map { (Hex.bytes($0.0), Hex.bytes($0.1)) }, removalIndex: removalIndex,
            sourceLocation: sourceLocation)
    }

    /// The commands sent so far.
    public var sent: [[UInt8]] { log.withLock { $0 } }

    /// Whether every scripted command was sent.
    public var isFinished: Bool { sent.count == script.count }

    /// Answers the next scripted command.
    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let index = log.withLock { sent in
            sent.append(command)
            return sent.count - 1
        }
        if index == removalIndex { throw Removed(index: index) }
        guard index < script.count else {
            Issue.record(
                "command \(index) \(Hex.string(command)) is past the end of the script", sourceLocation: sourceLocation)
            throw Unexpected()
        }
        guard script[index].command == command else {
            Issue.record(
                "command \(index) was \(Hex.string(command)), the script expects \(Hex.string(script[index].command))",
                sourceLocation: sourceLocation)
            throw Unexpected()
        }
        return script[index].response
    }
}
