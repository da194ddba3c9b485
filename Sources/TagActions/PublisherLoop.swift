import Foundation
import Logging
import MQTTClient
import StateStore
import Synchronization
import TagRules

/// The state of one ``MQTTPublisher`` run: the publications handed to libmosquitto, the acknowledgements not yet
/// written, the readers known, and the connection state last logged.
///
/// It works only when something happens: a connection event, a publication accepted, a reader, or its one alarm,
/// set for the earliest thing due (acknowledgements to write 50 ms after the first of a batch, the earliest
/// pending publication's `retryFor` deadline, the stop's deadline). An idle publisher has no alarm and wakes for
/// nothing.
struct PublisherLoop {
    /// The connection state as last logged (one line per change).
    enum State: Equatable {
        case starting
        case connected
        case down(String)
    }

    let publisher: MQTTPublisher
    let connection: MQTTConnection
    /// Message id → outbox row, for publications handed over and not yet acknowledged.
    var handedOver: [Int32: Int64] = [:]
    /// The highest row id handed over: rows above it are published next.
    var cursor: Int64 = 0
    /// Whether ``cursor`` was moved back to the start (``MQTTPublisher/retryPending()``) and the pass over the
    /// pending rows since has not ended: rows handed over or acknowledged meanwhile are skipped in it.
    var isRewound = false
    /// Rows acknowledged, not yet marked delivered.
    var acknowledged: [Int64] = []
    /// The readers present and whether a tag is on each, as the router last told (Home Assistant discovery and
    /// its presence sensor): replaced by each report, never changed here.
    var readers: [String: Bool] = [:]
    var state = State.starting
    /// When the acknowledgements waiting in ``acknowledged`` are written, at the latest.
    var acknowledgementsDue: ContinuousClock.Instant?
    /// When the earliest pending publication's `retryFor` ends (nil: none pending, or not read yet).
    var expiryDue: ContinuousClock.Instant?
    /// Whether ``expiryDue`` must be read again from the outbox (a publication was accepted or one ended).
    var expiryUnknown = true
    /// Whether the hand-over limit left pending rows behind: more are handed over as acknowledgements free places.
    var isBacklogged = false
    /// The alarm set now, and the task that sleeps until it.
    var alarmAt: ContinuousClock.Instant?
    var alarmTask: Task<Void, Never>?
    /// The message id of `offline` on a clean stop, once published.
    var stopMessageID: Int32?
    var stopDeadline: ContinuousClock.Instant?
    /// Whether DISCONNECT has been asked for.
    var isDisconnecting = false

    var settings: MQTTSettings { publisher.settings }
    var logger: Logger { publisher.logger }

    init(publisher: MQTTPublisher, connection: MQTTConnection) {
        self.publisher = publisher
        self.connection = connection
    }

    /// Reacts to inputs until the stop has been carried out (or the stream ends).
    mutating func run() async {
        for await input in publisher.inputs {
            switch input {
            case .connection(let event):
                if handle(event) {
                    alarmTask?.cancel()
                    return
                }
            case .wake:
                publisher.wakePending.store(false, ordering: .releasing)
                expiryUnknown = true
                publishPending()
            case .retry:
                cursor = 0
                isRewound = true
                expiryUnknown = true
                publishPending()
            case .readers(let now):
                let before = readers
                readers = now
                guard state == .connected else { continue }
                publishDiscovery(for: now.keys.filter { before[$0] == nil }.sorted())
                // A new reader's state, a changed one's, and OFF for a reader that went with a tag on it.
                var changed = now.filter { before[$0.key] != $0.value }
                for (reader, wasPresent) in before where wasPresent && now[reader] == nil { changed[reader] = false }
                publishPresence(changed)
            case .status:
                if state == .connected, stopDeadline == nil {
                    _ = try? connection.publish(publisher.statusMessage(online: true))
                }
            case .alarm:
                alarmAt = nil
                alarmWentOff()
                if !isDisconnecting, let stopDeadline, ContinuousClock.now >= stopDeadline { disconnect() }
            case .stop:
                guard stopDeadline == nil else { continue }
                stopDeadline = .now + .seconds(2)
                if state == .connected {
                    stopMessageID = try? connection.publish(publisher.statusMessage(online: false))
                } else {
                    disconnect()
                }
            }
            setAlarm()
        }
        alarmTask?.cancel()
        flushAcknowledgements()
    }

    /// Handles a connection event; returns true once the connection has stopped.
    private mutating func handle(_ event: MQTTEvent) -> Bool {
        switch event {
        case .connected:
            publisher.connected.store(true, ordering: .relaxed)
            publisher.onConnectionChange(true)
            if state != .connected {
                logger.info(
                    "mqtt connected",
                    metadata: ["mqtt.broker": "\(settings.url)", "mqtt.client_id": "\(settings.clientID)"])
            }
            state = .connected
            _ = try? connection.publish(publisher.statusMessage(online: true))
            if let prefix = settings.discoveryPrefix {
                try? connection.subscribe(prefix + "/status", qos: 1)
                publishDiscovery(for: readers.keys.sorted())
                publishPresence(readers)
            }
            publishPending()
        case .refused(let code, let reason):
            let hint =
                code == 4 || code == 5
                ? "check username and password in the mqtt: block and the broker's password file and ACL"
                : "check clientId and the broker's settings"
            changeState(to: "refused: \(reason)", message: "mqtt broker refused the connection", hint: hint)
        case .connectFailed(let reason):
            changeState(
                to: "unreachable: \(reason)", message: "mqtt broker unreachable, retrying in the background",
                hint: reason.contains("certificate") ? "check tls.ca in the mqtt: block" : nil)
        case .lost(let reason):
            changeState(to: "lost: \(reason)", message: "mqtt connection lost, reconnecting", hint: nil)
        case .acknowledged(let messageID):
            if let row = handedOver.removeValue(forKey: messageID) {
                acknowledged.append(row)
                if acknowledged.count >= 512 {
                    flushAcknowledgements()
                } else if acknowledgementsDue == nil {
                    acknowledgementsDue = .now + .milliseconds(50)
                }
            }
            if messageID == stopMessageID, !isDisconnecting { disconnect() }
        case .message(let message):
            if let prefix = settings.discoveryPrefix, message.topic == prefix + "/status",
                message.payload == Array("online".utf8)
            {
                publishDiscovery(for: readers.keys.sorted())
            }
        case .stopped:
            flushAcknowledgements()
            logger.info("mqtt disconnected", metadata: ["mqtt.broker": "\(settings.url)"])
            return true
        }
        return false
    }

    /// Logs a connection problem when it differs from the last one, and marks the connection down.
    private mutating func changeState(to new: String, message: String, hint: String?) {
        if state == .connected {
            publisher.connected.store(false, ordering: .relaxed)
            publisher.onConnectionChange(false)
        }
        guard state != .down(new) else { return }
        var metadata: Logger.Metadata = ["mqtt.broker": "\(settings.url)", "reason": "\(new)"]
        if let hint { metadata["fix"] = "\(hint)" }
        if new.hasPrefix("refused") {
            logger.error("\(message)", metadata: metadata)
        } else {
            logger.warning("\(message)", metadata: metadata)
        }
        state = .down(new)
    }

    private mutating func disconnect() {
        isDisconnecting = true
        flushAcknowledgements()
        connection.stop()
    }

    /// Hands pending rows above the cursor to libmosquitto, while connected and under the hand-over limit; after
    /// a rewind, skipping the rows handed over or acknowledged already (still pending in the outbox).
    private mutating func publishPending() {
        guard state == .connected, stopDeadline == nil else { return }
        let limit = publisher.configuration.maxHandedOver
        let inFlight: Set<Int64> = isRewound ? Set(handedOver.values).union(acknowledged) : []
        while handedOver.count < limit {
            let rows: [Delivery]
            let wanted = min(500, limit - handedOver.count)
            do {
                rows = try publisher.database.pendingPublications(after: cursor, limit: wanted)
            } catch {
                logger.error("mqtt outbox: state database error, retrying", metadata: ["error": "\(error)"])
                return
            }
            for row in rows {
                cursor = row.id
                if inFlight.contains(row.id) { continue }
                do {
                    let id = try connection.publish(
                        MQTTMessage(topic: row.target, payload: row.body, qos: row.qos, retain: row.retain))
                    handedOver[id] = row.id
                } catch {
                    fail(row, reason: "\(error)")
                }
            }
            if rows.count < wanted {
                isBacklogged = false
                isRewound = false
                return
            }
        }
        isBacklogged = true
    }

    /// Does what is due: writes the acknowledgements, gives up the publications past their `retryFor`, and hands
    /// more over if the hand-over limit left some behind.
    private mutating func alarmWentOff() {
        let now = ContinuousClock.now
        if let due = acknowledgementsDue, due <= now { flushAcknowledgements() }
        if let due = expiryDue, due <= now { expirePublications() }
        if isBacklogged { publishPending() }
    }

    /// Fails every pending publication whose `retryFor` has passed.
    private mutating func expirePublications() {
        expiryUnknown = true
        do {
            for row in try publisher.database.expiredPublications(now: Timestamp.milliseconds(Date())) {
                if let messageID = handedOver.first(where: { $0.value == row.id })?.key {
                    handedOver.removeValue(forKey: messageID)
                }
                fail(row, reason: "not acknowledged by the broker within retryFor")
            }
        } catch {
            logger.error("mqtt outbox: state database error, retrying", metadata: ["error": "\(error)"])
        }
    }

    /// Sets the alarm for the earliest thing due, or none: a sleeping task yields ``MQTTPublisher/Input/alarm``
    /// then. A later input moves it only when something earlier is due.
    private mutating func setAlarm() {
        if expiryUnknown {
            expiryUnknown = false
            do {
                expiryDue = try publisher.database.nextPublicationDeadline().map { deadline in
                    .now + .milliseconds(max(0, deadline - Timestamp.milliseconds(Date())))
                }
            } catch {
                logger.error("mqtt outbox: state database error, retrying", metadata: ["error": "\(error)"])
                expiryDue = .now + .seconds(1)
            }
        }
        var due = [acknowledgementsDue, expiryDue, isDisconnecting ? nil : stopDeadline].compactMap { $0 }.min()
        // A hand-over left behind waits for acknowledgements; if none are awaited it tries again in a second.
        if isBacklogged, handedOver.isEmpty { due = min(due ?? .now + .seconds(1), .now + .seconds(1)) }
        guard due != alarmAt else { return }
        alarmTask?.cancel()
        alarmAt = due
        guard let due else {
            alarmTask = nil
            return
        }
        let input = publisher.input
        alarmTask = Task {
            guard (try? await Task.sleep(until: due, clock: .continuous)) != nil else { return }
            input.yield(.alarm)
        }
    }

    private func fail(_ row: Delivery, reason: String) {
        logger.error(
            "mqtt publication failed",
            metadata: [
                "event.id": "\(row.eventID)", "rule.name": "\(row.rule)", "action.kind": "mqtt",
                "mqtt.topic": "\(row.target)", "error": "\(reason)",
            ])
        do {
            let now = Timestamp.milliseconds(Date())
            try publisher.database.record([
                DeliveryOutcome(id: row.id, state: .failed, error: reason, nextAttemptAt: now, finishedAt: now)
            ])
        } catch {
            logger.error("mqtt outbox: state database error", metadata: ["error": "\(error)"])
        }
    }

    private mutating func flushAcknowledgements() {
        acknowledgementsDue = nil
        guard !acknowledged.isEmpty else { return }
        do {
            let now = Timestamp.milliseconds(Date())
            try publisher.database.record(
                acknowledged.map { DeliveryOutcome(id: $0, state: .delivered, nextAttemptAt: now, finishedAt: now) })
            acknowledged.removeAll(keepingCapacity: true)
        } catch {
            logger.error("mqtt outbox: state database error, retrying", metadata: ["error": "\(error)"])
        }
    }

    /// Publishes Home Assistant discovery (retained) for readers: the tag scanner, the event entity and the
    /// presence sensor of each.
    private func publishDiscovery(for names: [String]) {
        guard let prefix = settings.discoveryPrefix else { return }
        for name in names {
            let discovery = HomeAssistantDiscovery(
                settings: settings, reader: name, version: publisher.configuration.version)
            do {
                for message in discovery.messages(prefix: prefix) {
                    try connection.publish(
                        MQTTMessage(topic: message.topic, payload: message.payload, qos: 1, retain: true))
                }
            } catch {
                logger.warning(
                    "mqtt: cannot publish Home Assistant discovery",
                    metadata: ["reader.name": "\(name)", "error": "\(error)"])
            }
        }
    }

    /// Publishes whether a tag is on each of `readers` (retained `ON` or `OFF`), with Home Assistant discovery on.
    private func publishPresence(_ readers: [String: Bool]) {
        guard settings.discoveryPrefix != nil else { return }
        for (reader, isPresent) in readers.sorted(by: { $0.key < $1.key }) {
            do {
                try connection.publish(
                    MQTTMessage(
                        topic: settings.presenceTopic(reader: reader), text: isPresent ? "ON" : "OFF", qos: 1,
                        retain: true))
            } catch {
                logger.warning(
                    "mqtt: cannot publish a reader's presence",
                    metadata: ["reader.name": "\(reader)", "error": "\(error)"])
            }
        }
    }
}
