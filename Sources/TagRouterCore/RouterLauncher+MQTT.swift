import CoreMetrics
import Foundation
import Logging
import StateStore
import TagActions
import TagRules

extension RouterLauncher {
    /// The MQTT publisher of the rules' `mqtt:` block (docs/rules.md, "`mqtt:`: the broker"), or nil without one
    /// or in a dry run. The environment variables `TAGROUTER_MQTT_RECONNECT_MIN_MS` and
    /// `TAGROUTER_MQTT_RECONNECT_MAX_MS` shorten the reconnection backoff (for tests).
    static func makeMQTTPublisher(
        ruleSet: RuleSet, outbox: StateDatabase?, metrics: RouterMetrics, status: HostStatus, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> MQTTPublisher? {
        guard let settings = ruleSet.mqtt, let outbox else { return nil }
        var configuration = MQTTPublisher.Configuration(version: Version.current)
        if let minimum = environment["TAGROUTER_MQTT_RECONNECT_MIN_MS"].flatMap(Int.init) {
            configuration.minimumReconnectDelay = .milliseconds(minimum)
        }
        if let maximum = environment["TAGROUTER_MQTT_RECONNECT_MAX_MS"].flatMap(Int.init) {
            configuration.maximumReconnectDelay = .milliseconds(maximum)
        }
        metrics.mqttConnected.record(0)
        return MQTTPublisher(
            settings: settings, database: outbox, configuration: configuration, logger: logger,
            onConnectionChange: { metrics.mqttConnected.record($0 ? 1 : 0) }, status: { status.document() })
    }

    /// The status document's service (docs/fleet.md, "The status document"), reading the router's readers and
    /// lockouts and published through the MQTT publisher.
    static func attach<Events>(_ status: HostStatus, router: Router<Events>, mqtt: MQTTPublisher) -> HostStatus {
        status.attach(
            readers: { router.readerStates() }, lockouts: { router.lockedReaders() },
            publish: { mqtt.publishStatus() })
        return status
    }

    /// The decision stream (docs/operations.md, "The decision stream"): while the rules in force have
    /// `decisions: true` in their `mqtt:` block, each decision on a door reader is a QoS 1 publication to
    /// `<topicPrefix>/decisions` (the publisher's prefix), written to the outbox on the tap's thread like an `mqtt`
    /// action, so it survives a restart or a broker outage.
    static func decisionStream(_ mqtt: MQTTPublisher, store: RuleStore, logger: Logger) -> DecisionSink {
        let topic = mqtt.settings.topicPrefix + "/decisions"
        return DecisionSink(
            wants: { reader in
                let rules = store.ruleSet
                return rules.mqtt?.publishesDecisions == true && rules.isDoorReader(reader)
            },
            publish: { decision in
                let publication = Delivery.mqtt(
                    topic: topic, payload: decision.json(), qos: 1, eventID: decision.eventID,
                    rule: decision.rule ?? "-")
                do {
                    _ = try mqtt.enqueue(publication)
                } catch {
                    logger.warning(
                        "decision.enqueue_failed: the decision is not published",
                        metadata: ["reader.name": "\(decision.reader)", "error": "\(error)"])
                }
            })
    }
}
