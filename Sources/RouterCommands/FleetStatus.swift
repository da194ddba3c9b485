import Foundation
import JSONOutput
import MQTTClient
public import TagActions

/// `tagrouter fleet status` (docs/fleet.md, "Fleet status"): every host's retained status document, read from the
/// broker, as a table of which host runs which bundle and which are behind, offline or unsynchronised.
public enum FleetStatus {
    /// One host's row.
    public struct Host: Sendable, Equatable, Encodable {
        /// The topic level between the prefix and `status` (the host's MQTT client id by default).
        public var host: String
        /// Its document; nil when the message is not one (`problem` says why).
        public var status: StatusDocument?
        /// Why the message is not a status document.
        public var problem: String?
        /// Whether its bundle's version is lower than the highest any host runs (or it has none while others do).
        public var behind: Bool

        /// Whether the host needs a look: offline, behind, its clock not synchronised, or an unreadable document.
        public var needsAttention: Bool {
            guard let status else { return true }
            return status.state != "online" || behind || status.clock?.synchronized == false
        }
    }

    /// Reads every host's retained status document.
    /// - Parameters:
    ///   - broker: the broker.
    ///   - prefix: the first topic level(s) of the hosts' topic prefixes (`tagrouter`).
    ///   - wait: how long to collect documents after subscribing (retained ones arrive at once).
    ///   - environment: the broker's credentials and CA (``BrokerSession/connect(to:clientID:environment:timeout:)``).
    /// - Returns: each host's row, sorted by host.
    /// - Throws: ``CommandFailure`` when the broker cannot be reached.
    public static func collect(
        broker: BrokerAddress, prefix: String, wait: Duration, environment: [String: String]
    ) async throws -> [Host] {
        let session = try await BrokerSession.connect(
            to: broker, clientID: BrokerSession.clientID("fleet"), environment: environment)
        let filter = prefix + "/+/status"
        do {
            try session.connection.subscribe(filter, qos: 1)
        } catch {
            session.connection.stop()
            throw CommandFailure("\(broker): cannot subscribe to \(filter): \(error)")
        }
        let deadline = Task {
            try await Task.sleep(for: wait)
            session.connection.stop()
        }
        defer { deadline.cancel() }
        var documents: [String: [UInt8]] = [:]
        collecting: for await event in session.events {
            switch event {
            case .message(let message):
                let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false)
                guard levels.count >= 2 else { continue }
                documents[String(levels[levels.count - 2])] = message.payload
            case .stopped:
                break collecting
            default:
                continue
            }
        }
        return rows(documents)
    }

    /// The rows of the documents read, by host: each parsed, and marked behind when its bundle is older than the
    /// newest one seen.
    /// - Parameter documents: each host's payload.
    /// - Returns: the rows, sorted by host.
    public static func rows(_ documents: [String: [UInt8]]) -> [Host] {
        var hosts = documents.sorted { $0.key < $1.key }.map { host, payload in
            do {
                return Host(host: host, status: try parse(payload), problem: nil, behind: false)
            } catch {
                return Host(host: host, status: nil, problem: "\(error)", behind: false)
            }
        }
        let newest = hosts.compactMap { $0.status?.bundle?.version }.max()
        for index in hosts.indices {
            guard let newest, let status = hosts[index].status, status.version != nil else { continue }
            hosts[index].behind = (status.bundle?.version ?? 0) < newest
        }
        return hosts
    }

    /// A status document from a payload; the bare `online` and `offline` of earlier releases are documents with a
    /// state alone.
    static func parse(_ payload: [UInt8]) throws -> StatusDocument {
        let text = String(decoding: payload, as: UTF8.self)
        if text == "online" || text == "offline" { return StatusDocument(state: text) }
        do {
            return try JSONDecoder().decode(StatusDocument.self, from: Data(payload))
        } catch {
            throw CommandFailure("not a status document (\(payload.count) bytes)")
        }
    }

    /// The table (or `--json`), with exit status 1 when a host is offline, behind, unsynchronised or unreadable, or
    /// when no host was seen.
    /// - Parameters:
    ///   - hosts: the rows.
    ///   - json: one JSON document instead of the table.
    /// - Returns: the output.
    public static func report(_ hosts: [Host], json: Bool) -> CommandOutput {
        let status: Int32 = hosts.isEmpty || hosts.contains(where: \.needsAttention) ? 1 : 0
        if json {
            struct Document: Encodable {
                var hosts: [Host]
                var newestBundle: Int?
            }
            let document = Document(hosts: hosts, newestBundle: hosts.compactMap { $0.status?.bundle?.version }.max())
            return CommandOutput(standardOutput: JSONOutput.line(document) + "\n", status: status)
        }
        guard !hosts.isEmpty else {
            return CommandOutput(errors: ["no status document on the broker: no host has published one"], status: 1)
        }
        let header = ["HOST", "STATE", "BUNDLE", "BEHIND", "REFUSED", "CLOCK", "READERS", "OUTBOX", "UPTIME"]
        let rows = hosts.map { host -> [String] in
            guard let status = host.status else {
                return [host.host, "unreadable", "-", "-", host.problem ?? "-", "-", "-", "-", "-"]
            }
            let bundle = status.bundle.map { "v\($0.version) \($0.sha256.prefix(12))" } ?? "-"
            let refused = status.refusedBundle.map { refusal in
                (refusal.version.map { "v\($0) " } ?? "") + refusal.reason
            }
            let clock = status.clock.map { $0.synchronized ? "synced" : "unsynced" } ?? "-"
            let readers = status.readers.map { readers in
                readers.isEmpty
                    ? "none"
                    : readers.map { $0.state == "ready" ? $0.name : "\($0.name) (tag)" }
                        .joined(separator: ", ")
            }
            return [
                host.host, status.state, bundle, host.behind ? "yes" : "no", refused ?? "-", clock, readers ?? "-",
                status.outbox.map(String.init) ?? "-", status.uptime.map(Self.duration) ?? "-",
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let lines = ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return .lines(lines, status: status)
    }

    /// Seconds as `3d4h`, `2h5m`, `4m10s` or `12s`.
    static func duration(_ seconds: Int) -> String {
        let (days, hours, minutes) = (seconds / 86_400, seconds / 3_600 % 24, seconds / 60 % 60)
        if days > 0 { return "\(days)d\(hours)h" }
        if hours > 0 { return "\(hours)h\(minutes)m" }
        if minutes > 0 { return "\(minutes)m\(seconds % 60)s" }
        return "\(seconds)s"
    }
}
