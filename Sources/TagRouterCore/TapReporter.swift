public import Console
import CoreMetrics
import Foundation
public import Logging
import StateStore
import TagActions
import TagRules

/// Turns a ``TapOutcome`` into the tap's log line, its metrics and its history row: the one place each is
/// derived, so the three always agree (docs/operations.md, "Logs" and "Metrics").
public struct TapReporter: Sendable {
    let metrics: RouterMetrics
    let history: (any TapHistory)?
    let logger: Logger
    /// Where door decisions go; nil: nowhere.
    let decisions: DecisionSink?
    /// Where every tap goes for the console's Live page; nil: nowhere.
    let live: (any LiveTapSink)?

    /// Creates a reporter.
    /// - Parameters:
    ///   - metrics: the router metrics.
    ///   - history: where taps are recorded; `nil` records nothing (dry run).
    ///   - logger: where taps are logged.
    ///   - decisions: where door decisions go (docs/operations.md, "The decision stream"); nil: nowhere.
    ///   - live: where every tap goes for the web console (docs/console.md, "Live"); nil: nowhere.
    public init(
        metrics: RouterMetrics, history: (any TapHistory)?, logger: Logger, decisions: DecisionSink? = nil,
        live: (any LiveTapSink)? = nil
    ) {
        self.metrics = metrics
        self.history = history
        self.logger = logger
        self.decisions = decisions
        self.live = live
    }

    /// Logs, counts and records one tap, and hands a decision on a door reader to the decision stream.
    /// - Parameter outcome: how the tap ended.
    public func report(_ outcome: TapOutcome) {
        if let decisions, let decision = DoorDecision(outcome), decisions.wants(decision.reader) {
            decisions.publish(decision)
        }
        if !outcome.isLaterEvent { metrics.taps.increment() }
        var logger = self.logger
        switch outcome {
        case .readFailed(let reader, let failure):
            logger[metadataKey: "reader.name"] = "\(reader)"
            metrics.readError(failure.kind)
            logger.warning(
                "tap.read_failed", metadata: ["error": "\(failure.message)", "error.kind": "\(failure.kind.rawValue)"])
            record(TapRecord(time: Date(), reader: reader, outcome: .failed, detail: failure.message))
        case .invalidNDEF(let tag, let failure):
            tag.annotate(&logger)
            metrics.readError(failure.kind)
            logger.warning(
                "tap.invalid_ndef: the tag's NDEF message is invalid", metadata: ["error": "\(failure.message)"])
            record(TapRecord(time: Date(), reader: tag.reader, uid: tag.uid, outcome: .failed, detail: failure.message))
        case .ignored(let tag):
            tag.annotate(&logger)
            metrics.ignored.increment()
            logger.debug("tap.ignored: no rule matches")
            record(TapRecord(time: Date(), reader: tag.reader, uid: tag.uid, uri: tag.uri, outcome: .ignored), of: tag)
        case .suppressed(let tag, let rules, let since):
            tag.annotate(&logger, rules: rules)
            metrics.suppressed.increment()
            logger.debug("tap.suppressed: in cooldown", metadata: ["cooldown.since": "\(since)"])
            record(
                TapRecord(
                    time: Date(), reader: tag.reader, uid: tag.uid, uri: tag.uri, rule: rules.first,
                    outcome: .suppressed), of: tag)
        case .superseded(let tag, let rules):
            tag.annotate(&logger, rules: rules)
            logger.debug("tap.superseded: the presentation ended or was already dispatched")
        case .dispatched(let tag, let dispatch):
            report(dispatch, of: tag, logger: &logger)
        case .denied(let tag, let rule, let reason, let dispatch):
            metrics.denied(reason)
            report(dispatch, of: tag, logger: &logger, refusal: (rule, reason))
        case .heldByLearn(let tag):
            tag.annotate(&logger)
            metrics.ignored.increment()
            logger.info("tap.held_by_learn: tagrouter learn holds this reader to enroll the tag; nothing is done")
            record(
                TapRecord(
                    time: Date(), reader: tag.reader, uid: tag.uid, uri: tag.uri, outcome: .ignored,
                    detail: "held by tagrouter learn"), of: tag, isHeldForEnrollment: true)
        case .continued(let tag, let rules, let presentationID):
            tag.annotate(&logger, rules: rules)
            logger.debug(
                "tap.continued: the tag came back within the grace; its presentation goes on",
                metadata: ["presentation.id": "\(presentationID)"])
        }
    }

    private func report(
        _ dispatch: Dispatch, of tag: TagSummary, logger: inout Logger,
        refusal: (rule: String, reason: DenialReason)? = nil
    ) {
        let rules = dispatch.rules.map(\.rule)
        tag.annotate(&logger, rules: rules)
        if dispatch.event != .tap { metrics.presentationEvent(dispatch.event.rawValue) }
        if let refusal {
            logger[metadataKey: "denied.rule"] = "\(refusal.rule)"
            logger[metadataKey: "denied.reason"] = "\(refusal.reason.rawValue)"
        } else if !dispatch.isLaterEvent {
            metrics.matched.increment()
            metrics.tapToDispatch.recordNanoseconds(dispatch.latency.nanoseconds)
        }
        if let presentationID = dispatch.presentationID {
            logger[metadataKey: "presentation.id"] = "\(presentationID)"
            logger[metadataKey: "presentation.event"] = "\(dispatch.event.rawValue)"
        }
        if let presentedFor = dispatch.presentedFor {
            logger[metadataKey: "presented_ms"] = "\(presentedFor.millisecondsText)"
        }
        for rule in dispatch.rules {
            switch rule.result {
            case .performed(let outcomes): outcomes.forEach(metrics.action)
            case .renderFailed: metrics.renderFailed()
            }
        }
        let summary = dispatch.rules.flatMap(\.summaries).joined(separator: "; ")
        var metadata: Logger.Metadata = ["event.id": "\(dispatch.eventID)", "action.outcome": "\(summary)"]
        if !dispatch.isLaterEvent {
            metadata["latency_ms"] = "\(dispatch.latency.millisecondsText)"
            metadata["read_ms"] = "\(dispatch.readTime.millisecondsText)"
        }
        // A tap's line is `tap` (a return too, with presentation.event=returned); a later event's is its kind; a
        // refusal's is `tap.denied`.
        let message = refusal != nil ? "tap.denied" : dispatch.isLaterEvent ? dispatch.event.rawValue : "tap"
        logger.log(level: dispatch.hasFailure ? .warning : .info, "\(message)", metadata: metadata)
        var record = TapRecord(
            time: dispatch.time, reader: tag.reader, uid: tag.uid, uri: tag.uri,
            rule: refusal?.rule ?? rules.joined(separator: ","),
            outcome: refusal != nil ? .denied : Self.historyOutcome(of: dispatch), detail: summary,
            eventID: dispatch.eventID)
        record.reason = refusal?.reason.rawValue
        if dispatch.presentationID != nil {
            record.event = dispatch.event.rawValue
            record.presentationID = dispatch.presentationID
        }
        self.record(record, of: tag, latency: dispatch.isLaterEvent ? nil : dispatch.latency)
    }

    /// `failed` when an action failed or a rule did not render, else `dropped` when an action was dropped, else
    /// `matched`.
    static func historyOutcome(of dispatch: Dispatch) -> TapRecord.Outcome {
        var isDropped = false
        for rule in dispatch.rules {
            switch rule.result {
            case .renderFailed: return .failed
            case .performed(let outcomes):
                if outcomes.contains(where: { $0.label == .failed }) { return .failed }
                isDropped = isDropped || outcomes.contains { $0.label == .dropped }
            }
        }
        return isDropped ? .dropped : .matched
    }

    /// Records a tap in the history and hands it to the console's live feed (which never waits).
    private func record(
        _ tap: TapRecord, of tag: TagSummary? = nil, latency: Duration? = nil, isHeldForEnrollment: Bool = false
    ) {
        var tap = tap
        tap.tagName = tag?.name
        live?.publish(LiveTap(record: tap, tech: tag?.tech, latency: latency, isHeldForEnrollment: isHeldForEnrollment))
        guard let history else { return }
        do {
            try history.recordTap(tap)
        } catch {
            logger.error("history.write_failed", metadata: ["error": "\(error)"])
        }
    }
}

extension TagSummary {
    /// Adds the tag's metadata (`reader.name`, `tag.uid`, `tag.tech`, `ndef.uri`, `rule.name`) to a logger.
    fileprivate func annotate(_ logger: inout Logger, rules: [String] = []) {
        logger[metadataKey: "reader.name"] = "\(reader)"
        logger[metadataKey: "tag.uid"] = uid.map { "\($0)" }
        logger[metadataKey: "tag.tech"] = tech.map { "\($0)" }
        logger[metadataKey: "ndef.uri"] = uri.map { "\($0)" }
        logger[metadataKey: "tag.name"] = name.map { "\($0)" }
        if !rules.isEmpty { logger[metadataKey: "rule.name"] = "\(rules.joined(separator: ","))" }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }

    /// The duration in milliseconds with three decimals: `1.234`.
    var millisecondsText: String {
        let micros = nanoseconds / 1000
        return "\(micros / 1000).\(String(micros % 1000 + 1000).dropFirst())"
    }
}
