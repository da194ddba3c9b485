import CoreMetrics
import Foundation
public import Logging
import NDEF
import NFCTag
import PCSC
import Synchronization
public import TagActions
import TagRules

/// What happens to one tap: read → decode → match → cooldown → dispatch, with one info log line, a history
/// entry and the metrics.
public struct TapPipeline: Sendable {
    let readContext: ReadContext
    let rules: RuleStore
    let dispatcher: Dispatcher
    let history: Outbox?
    let metrics: RouterMetrics
    let logger: Logger

    /// Creates the pipeline.
    /// - Parameters:
    ///   - readContext: the context taps are read through.
    ///   - rules: the rules in force.
    ///   - dispatcher: carries out matched rules.
    ///   - history: where taps are recorded for `tagrouter history`; `nil` records nothing.
    ///   - metrics: the router metrics.
    ///   - logger: where taps are logged.
    public init(
        readContext: ReadContext, rules: RuleStore, dispatcher: Dispatcher, history: Outbox?, metrics: RouterMetrics,
        logger: Logger
    ) {
        self.readContext = readContext
        self.rules = rules
        self.dispatcher = dispatcher
        self.history = history
        self.metrics = metrics
        self.logger = logger
    }

    /// Reads, matches and dispatches one presentation.
    /// - Parameters:
    ///   - tap: the presentation.
    ///   - presentations: the presentation and cooldown state shared with the router.
    func tap(_ tap: Tap, presentations: borrowing Mutex<Presentations>) async {
        metrics.taps.increment()
        var logger = self.logger
        logger[metadataKey: "reader.name"] = "\(tap.reader)"
        let reading: TagReading
        let readStart = ContinuousClock.now
        do {
            reading = try await readContext.read(reader: tap.reader, atr: tap.atr)
        } catch {
            let kind = Self.readErrorKind(error)
            metrics.readError(kind: kind)
            logger.warning("tap.read_failed", metadata: ["error": "\(error)", "error.kind": "\(kind)"])
            record(TapRecord(time: Date(), reader: tap.reader, outcome: .failed, detail: "\(error)"))
            return
        }
        let readTime = ContinuousClock.now - readStart
        let uid = reading.uid.map(UID.hex)
        logger[metadataKey: "tag.uid"] = uid.map { "\($0)" }
        logger[metadataKey: "tag.tech"] = "\(reading.technology.rawValue)"
        var ndefBytes: [UInt8] = []
        if case .message(let bytes) = reading.content { ndefBytes = bytes }
        let message: NDEFMessage
        do {
            message = try NDEFMessage(decoding: ndefBytes)
        } catch {
            metrics.readError(kind: "ndef")
            logger.warning("tap.invalid_ndef: the tag's NDEF message is invalid", metadata: ["error": "\(error)"])
            record(TapRecord(time: Date(), reader: tap.reader, uid: uid, outcome: .failed, detail: "\(error)"))
            return
        }
        let event = TagEvent(reading: reading, message: message, reader: tap.reader)
        logger[metadataKey: "ndef.uri"] = event.uri.map { "\($0)" }
        let matched = rules.ruleSet.match(event)
        guard let first = matched.first else {
            metrics.ignored.increment()
            logger.debug("tap.ignored: no rule matches")
            record(TapRecord(time: Date(), reader: tap.reader, uid: uid, uri: event.uri, outcome: .ignored))
            return
        }
        let identity = TagIdentity(uid: reading.uid, ndef: ndefBytes)
        let decision = presentations.withLock {
            $0.tagIdentified(
                reader: tap.reader, serial: tap.serial, identity: identity, cooldown: first.rule.cooldown,
                now: .now)
        }
        logger[metadataKey: "rule.name"] = "\(matched.map(\.rule.name).joined(separator: ","))"
        switch decision {
        case .ignore:
            return
        case .suppressInCooldown(let since):
            metrics.suppressed.increment()
            logger.debug("tap.suppressed: in cooldown", metadata: ["cooldown.since": "\(since)"])
            record(
                TapRecord(
                    time: Date(), reader: tap.reader, uid: uid, uri: event.uri, rule: first.rule.name,
                    outcome: .suppressed))
            return
        case .dispatch:
            break
        }
        metrics.matched.increment()
        let time = Date()
        let eventID = EventID.make(at: time)
        let records = message.records.map(\.summary)
        let dispatchStart = ContinuousClock.now
        metrics.tapToDispatch.recordNanoseconds(Self.nanoseconds(dispatchStart - tap.received))
        let outcomes = await withTaskGroup(of: (Int, [ActionOutcome]).self) { group in
            for (index, match) in matched.enumerated() {
                let document = EventDocument(
                    id: eventID, time: Timestamp.rfc3339(time), rule: match.rule.name, reader: tap.reader,
                    tag: .init(uid: uid, tech: reading.technology.rawValue), uri: event.uri, records: records)
                group.addTask {
                    (index, await dispatcher.dispatch(rule: match.rule, event: event, document: document, time: time))
                }
            }
            var byRule = [[ActionOutcome]](repeating: [], count: matched.count)
            for await (index, outcomes) in group { byRule[index] = outcomes }
            return byRule.flatMap { $0 }
        }
        for outcome in outcomes {
            metrics.action(kind: outcome.kind, outcome: outcome.outcome)
        }
        let summary = outcomes.map { "\($0.kind) \($0.outcome)" + ($0.detail.map { " (\($0))" } ?? "") }
        let failed = outcomes.contains(where: \.isFailure)
        logger.log(
            level: failed ? .warning : .info, "tap",
            metadata: [
                "event.id": "\(eventID)", "action.outcome": "\(summary.joined(separator: "; "))",
                "latency_ms": "\(Self.milliseconds(dispatchStart - tap.received))",
                "read_ms": "\(Self.milliseconds(readTime))",
            ])
        record(
            TapRecord(
                time: time, reader: tap.reader, uid: uid, uri: event.uri,
                rule: matched.map(\.rule.name).joined(separator: ","),
                outcome: failed ? .failed : .matched, detail: summary.joined(separator: "; "), eventID: eventID))
    }

    private func record(_ tap: TapRecord) {
        guard let history else { return }
        do {
            try history.recordTap(tap)
        } catch {
            logger.error("history.write_failed", metadata: ["error": "\(error)"])
        }
    }

    /// The metrics label of a read failure.
    static func readErrorKind(_ error: any Error) -> String {
        if let error = error as? NFCTagError {
            switch error.code {
            case .tagRemoved: return "tag_removed"
            case .malformedCapabilityContainer, .malformedTLV, .malformedNDEFFile: return "malformed"
            default: return "protocol"
            }
        }
        if let error = error as? PCSCError {
            if error.isCardGone { return "tag_removed" }
            if error.isServiceLost { return "service_lost" }
            if error.isAccessRefused { return "access_refused" }
            return "pcsc"
        }
        return "other"
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    static func milliseconds(_ duration: Duration) -> String {
        let micros = nanoseconds(duration) / 1000
        return "\(micros / 1000).\(String(micros % 1000 + 1000).dropFirst())"
    }
}
