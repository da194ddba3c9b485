import Foundation
public import NDEF
import NFCTag
public import TagRules

/// What happens to one tap before any decision: read the tag, decode its NDEF message, match the rules. It
/// returns what it found and keeps no state; the ``Router`` decides what to do with it.
public struct TapPipeline: Sendable {
    let cardReader: any CardReader
    let rules: RuleStore

    /// Creates the pipeline.
    /// - Parameters:
    ///   - cardReader: reads the tag on a reader.
    ///   - rules: the rules in force.
    public init(cardReader: any CardReader, rules: RuleStore) {
        self.cardReader = cardReader
        self.rules = rules
    }

    /// Reads, decodes and matches the tag of one presentation.
    /// - Parameter tap: the presentation.
    /// - Returns: the read failure, the invalid message, or the tag and the rules it matches.
    public func read(_ tap: Tap) async -> TapRead {
        let start = ContinuousClock.now
        let reading: TagReading
        do {
            reading = try await cardReader.read(reader: tap.reader, atr: tap.atr)
        } catch {
            return .failed(ReadFailure(error))
        }
        let readTime = ContinuousClock.now - start
        let bytes: [UInt8]
        if case .message(let message) = reading.content { bytes = message } else { bytes = [] }
        var tag = TagSummary(reader: tap.reader, uid: reading.uid.map(UID.hex), tech: reading.technology.rawValue)
        var message: NDEFMessage
        do {
            message = try NDEFMessage(decoding: bytes)
        } catch {
            return .invalidNDEF(tag, ReadFailure(kind: .ndef, message: "\(error)"))
        }
        let decision = rules.ruleSet.decide(
            TagEvent(reading: reading, message: message, reader: tap.reader), at: Date())
        var identity = TagIdentity(uid: reading.uid, ndef: bytes)
        if let sun = decision.event.sun {
            // The message is shown without the SUN message it carried (the event's URI already is), and a tag the
            // reader cannot name (a random UID, a new message on every read) is the UID it proved.
            message = message.replacingTagURI(with: decision.event.uri ?? "")
            if case .content = identity, let uid = HexText.bytes(sun.uid) { identity = .uid(uid) }
        }
        tag.uri = decision.event.uri
        tag.name = decision.event.known?.name
        return .read(
            ReadTag(
                tag: tag, event: decision.event, message: message, identity: identity, matches: decision.matches,
                refusal: decision.refusal, readTime: readTime))
    }
}

/// What ``TapPipeline/read(_:)`` found.
public enum TapRead: Sendable {
    /// The tag could not be read.
    case failed(ReadFailure)
    /// The tag was read, but its NDEF message does not decode.
    case invalidNDEF(TagSummary, ReadFailure)
    /// The tag was read and decoded, and matched against the rules.
    case read(ReadTag)
}

/// A tag read, decoded and matched.
public struct ReadTag: Sendable {
    /// What the log line, the history and the event document say of the tag.
    public var tag: TagSummary
    /// The event the rules were matched against.
    public var event: TagEvent
    /// The decoded NDEF message.
    public var message: NDEFMessage
    /// The identity cooldown remembers the tag by.
    public var identity: TagIdentity
    /// The matched rules in order; empty when the tag is ignored or refused.
    public var matches: [MatchedRule]
    /// When no rule decided: the door rule that refused the tag (docs/doors.md, "Refusals").
    public var refusal: Refusal? = nil
    /// How long the tag's commands took.
    public var readTime: Duration
}

/// The reader and what was read of a tag, as far as the read got.
public struct TagSummary: Sendable, Hashable {
    /// The reader name.
    public var reader: String
    /// The UID in hex, if the tag has one.
    public var uid: String?
    /// The technology (`type2`, `type4`, …).
    public var tech: String?
    /// The tag's URI, if its message holds one.
    public var uri: String?
    /// The tag's enrolled name, if it is enrolled (docs/doors.md, "The tags file").
    public var name: String?
}
