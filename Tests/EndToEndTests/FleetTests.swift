import FleetBundle
import Foundation
import HTTPTestSupport
import Logging
import MQTTClient
import MQTTTestSupport
import Synchronization
import TestSupport
import Testing
import VirtualTag

/// Many doors, one list (docs/fleet.md), with real processes: a private pcscd with two virtual readers, three
/// routers (two doors, each on a reader of its own, and a host with no reader), and a real HTTPS server on
/// 127.0.0.1 (a private CA the hosts trust through `TAGROUTER_BUNDLE_CA`) serving bundles made by the `tagrouter`
/// binary. A tag enrolled centrally (`learn --bundle`, while one door is down) opens both doors, the one that was
/// down once it caught up; a bundle signed by another key, altered, older, or with a check error is refused by
/// every host with its reason, and the previous rules stay in force; a host restarted with its source gone runs
/// the bundle it kept. Every host keeps its status document on a real mosquitto, which `tagrouter fleet status`
/// reads: a refusal's reason shows there, and a host that missed a bundle while down shows as behind until it
/// catches up. A second test takes bundles from an MQTT topic's retained message over TLS, published by
/// `tagrouter bundle publish`, with a rollback refused, then taken by a host that allows it.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct FleetTests {
    static let alice: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]

    /// What the HTTP server serves: the bundle file and its `ETag`.
    final class Served: Sendable {
        let bundle = Mutex<Data>(Data())
        func set(_ data: Data) { bundle.withLock { $0 = data } }
        func answer(_ request: RecordedRequest) -> TestResponse {
            let data = bundle.withLock { $0 }
            let etag = "\"\(SignedBundle.digest(of: data).prefix(16))\""
            if request.header("If-None-Match") == etag { return .status(304) }
            return .status(200, headers: [("ETag", etag)], body: Array(data))
        }
    }

    /// A bundle folder's files: the door rule, which records opens and refusals to `output`, and a tags file.
    static func folder(output: String, tags: [(String, [UInt8])], ruleName: String = "door", extra: String = "")
        -> [SignedBundle.Entry]
    {
        func record(_ what: String) -> String {
            #"["/bin/sh", "-c", "printf '%s|%s|%s\n' \"$1\" \"$2\" \"$3\" >> \#(output)", "sh", "\#(what)", "{reader}", "{tag.name}"]"#
        }
        let rules = """
            version: 1
            defaults: { cooldown: 0 }
            rules:
              - name: \(ruleName)
                match: { tags: [staff] }
                run: \(record("open"))
                denied: { run: \(record("denied")) }
            \(extra)
            """
        var tagsFile = "version: 1\ntags:\n"
        for (name, uid) in tags {
            tagsFile += "  - name: \(name)\n    uid: \"\(uid.map { String(format: "%02X", $0) }.joined())\"\n"
            tagsFile += "    groups: [staff]\n"
        }
        return [
            .init(path: "10-door.yaml", content: Data(rules.utf8)),
            .init(path: "tags.yaml", content: Data(tagsFile.utf8)),
        ]
    }

    struct Host {
        let name: String
        let directory: String
        let arguments: [String]
        var router: RouterProcess

        func restart(environment: [String: String], logName: String) throws -> Host {
            var copy = self
            copy.router = try RouterProcess(
                arguments: arguments, environment: environment, directory: directory, logName: logName)
            return copy
        }
    }

    @Test func bundlesReachEveryHostAndRefusedOnesChangeNothing() async throws {
        try await withPCSCD { pcscd in
            let root = NSTemporaryDirectory() + "fleet-e2e-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let output = root + "/doors.txt"
            let served = Served()
            // HTTPS with a private CA, which the hosts trust through TAGROUTER_BUNDLE_CA.
            let authority = try TestCertificateAuthority.make()
            defer { authority.remove() }
            let server = try await HTTPTestServer.start(tls: try authority.issue(for: "localhost")) { request, _ in
                served.answer(request)
            }
            let url = "https://localhost:\(server.port)/fleet.trb"
            let broker = try await MosquittoBroker.start()
            let statuses = try await MQTTSubscriber(broker: broker, filter: "tagrouter/+/status")
            let environment = pcscd.environment.merging(Self.brokerEnvironment) { $1 }.merging([
                "TAGROUTER_BUNDLE_CA": authority.certificate
            ]) { $1 }

            // The administrator's side, through the binary: a key, and version 1 of the folder (bob only).
            let keygen = try await TagRouterBinary.run(
                ["bundle", "keygen", "--out", root + "/fleet"], environment: environment)
            #expect(keygen.status == 0, "\(keygen.standardError)")
            let key = try BundleSigningKey(contentsOf: root + "/fleet.key")
            let admin = root + "/admin"
            try FileManager.default.createDirectory(atPath: admin, withIntermediateDirectories: true)
            let bob: [(String, [UInt8])] = [("bob", [0x04, 1, 2, 3, 4, 5, 6])]
            for entry in Self.folder(output: output, tags: bob) {
                try entry.content.write(to: URL(fileURLWithPath: admin + "/" + entry.path))
            }
            served.set(try await Self.pack(admin, root: root, version: 1, environment: environment))

            var hosts: [Host] = []
            for (index, reader) in [pcscd.readerName(slot: 0), pcscd.readerName(slot: 1), "no such reader"].enumerated()
            {
                let directory = root + "/host\(index)"
                try FileManager.default.createDirectory(
                    atPath: directory + "/overlay", withIntermediateDirectories: true)
                // The host's own broker settings: its client id names its status document's topic.
                try Self.overlay(host: "host\(index)", port: broker.port).write(
                    toFile: directory + "/overlay/00-host.yaml", atomically: true, encoding: .utf8)
                let arguments = [
                    "--rules", directory + "/overlay", "--state-dir", directory + "/state", "--reader", reader,
                    "--bundle-from", url, "--bundle-key", root + "/fleet.pub", "--bundle-poll", "1s",
                    "--log-level", "debug",
                ]
                let router = try RouterProcess(
                    arguments: arguments, environment: environment, directory: directory)
                hosts.append(Host(name: "host\(index)", directory: directory, arguments: arguments, router: router))
            }
            defer { for host in hosts { host.router.kill() } }
            for host in hosts { try await host.router.waitForLog("bundle.applied", timeout: .seconds(30)) }
            try await hosts[0].router.waitForLog("watching 1 reader")
            try await hosts[1].router.waitForLog("watching 1 reader")
            // Each host's status document: version 1 in force, its readers, nothing refused.
            for (index, reader) in [pcscd.readerName(slot: 0), pcscd.readerName(slot: 1), nil].enumerated() {
                let document = try await Self.status(statuses, host: "host\(index)") {
                    Self.bundleVersion($0) == 1 && ($0["readers"] as? [[String: Any]])?.count == (reader == nil ? 0 : 1)
                }
                #expect(document["state"] as? String == "online")
                #expect(document["refusedBundle"] is NSNull)
                #expect((document["bundle"] as? [String: Any])?["source"] as? String == url)
                #expect((document["clock"] as? [String: Any])?["source"] as? String == "adjtimex")
                #expect((document["readers"] as? [[String: Any]])?.first?["name"] as? String == reader)
                #expect(document["outbox"] as? Int == 0 && (document["lockouts"] as? [Any])?.isEmpty == true)
            }

            // Alice is not enrolled yet: both doors refuse her.
            try await tap(
                pcscd, slot: 0, router: hosts[0].router, output: output,
                expecting: "denied|\(pcscd.readerName(slot: 0))|")
            try await tap(
                pcscd, slot: 1, router: hosts[1].router, output: output,
                expecting: "denied|\(pcscd.readerName(slot: 1))|")

            // Central enrollment while host 1 is down: learn --bundle on its reader, then pack version 2.
            try await hosts[1].router.terminate()
            async let learned = TagRouterBinary.run(
                [
                    "learn", "--bundle", admin, "--name", "alice", "--group", "staff", "--reader",
                    pcscd.readerName(slot: 1),
                ], environment: environment, timeout: .seconds(60))
            let deadline = ContinuousClock.now + .seconds(20)
            while !FileManager.default.fileExists(atPath: admin + "/.learning"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let fob = try Self.present(pcscd, slot: 1)
            let tagsFile = { (try? String(contentsOfFile: admin + "/tags.yaml", encoding: .utf8)) ?? "" }
            while !tagsFile().contains("04A1B2C3D4E580"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            await fob.remove()
            let enrollment = try await learned
            #expect(enrollment.status == 0, "\(enrollment.standardError)")
            #expect(tagsFile().contains("04A1B2C3D4E580"))
            served.set(try await Self.pack(admin, root: root, version: 2, environment: environment))
            for host in [hosts[0], hosts[2]] {
                try await host.router.waitForLog("bundle.version=2", timeout: .seconds(30))
            }
            // fleet status: host 1, stopped cleanly while version 2 came, is offline and behind.
            try await Self.status(statuses, host: "host1") { $0["state"] as? String == "offline" }
            for host in ["host0", "host2"] {
                try await Self.status(statuses, host: host) { Self.bundleVersion($0) == 2 }
            }
            let behind = try await Self.fleetStatus(broker: broker, environment: environment)
            #expect(behind.status == 1, "\(behind.standardOutput)")
            #expect(behind.hosts["host1"]?.state == "offline" && behind.hosts["host1"]?.behind == true)
            #expect(behind.hosts["host1"]?.version == 1)
            #expect(behind.hosts["host0"]?.behind == false && behind.hosts["host2"]?.behind == false)
            let table = try await TagRouterBinary.run(
                ["fleet", "status", "--broker", "127.0.0.1:\(broker.port)"], environment: environment)
            #expect(table.status == 1)
            let hostLine = table.standardOutput.split(separator: "\n").first { $0.hasPrefix("host1 ") } ?? ""
            #expect(hostLine.contains("offline") && hostLine.contains(" yes "), "\(table.standardOutput)")
            try await tap(
                pcscd, slot: 0, router: hosts[0].router, output: output,
                expecting: "open|\(pcscd.readerName(slot: 0))|alice")
            // Host 1 comes back with version 1, catches up, and its door opens for her too.
            hosts[1] = try hosts[1].restart(environment: environment, logName: "router-2.log")
            try await hosts[1].router.waitForLog("bundle.restored bundle.sha256=")
            #expect(hosts[1].router.lines(containing: "bundle.restored").first?.contains("bundle.version=1") == true)
            try await hosts[1].router.waitForLog("bundle.version=2", timeout: .seconds(30))
            try await hosts[1].router.waitForLog("watching 1 reader")
            try await tap(
                pcscd, slot: 1, router: hosts[1].router, output: output,
                expecting: "open|\(pcscd.readerName(slot: 1))|alice")
            // Caught up: no host is behind.
            try await Self.status(statuses, host: "host1") {
                $0["state"] as? String == "online" && Self.bundleVersion($0) == 2
            }
            let caughtUp = try await Self.fleetStatus(broker: broker, environment: environment)
            #expect(caughtUp.hosts.count == 3)
            #expect(
                caughtUp.hosts.values.allSatisfy { !$0.behind && $0.state == "online" }, "\(caughtUp.standardOutput)")
            // The exit status then depends only on the clocks (this machine's may not be synchronised).
            #expect(caughtUp.status == (caughtUp.hosts.values.allSatisfy(\.synchronized) ? 0 : 1))
            let enrolled = try BundleFolder.read(admin)

            // Each bad bundle is refused by every host with its reason.
            var altered = [UInt8](try SignedBundle(packing: enrolled, version: 3, created: Date(), key: key).data)
            altered[altered.count - 5] ^= 0x01
            let refusals: [(Data, String)] = [
                (
                    try SignedBundle(packing: enrolled, version: 3, created: Date(), key: BundleSigningKey()).data,
                    "untrusted-key"
                ),
                (Data(altered), "digest"),
                (
                    try SignedBundle(
                        packing: Self.folder(output: output, tags: bob), version: 1, created: Date(), key: key
                    ).data, "older"
                ),
                (
                    try SignedBundle(
                        packing: Self.folder(
                            output: output, tags: bob,
                            extra: "  - name: broken\n    match: { domainz: [x.example] }\n    run: [\"/bin/true\"]\n"),
                        version: 3, created: Date(), key: key
                    ).data, "check"
                ),
            ]
            for (index, (data, reason)) in refusals.enumerated() {
                served.set(data)
                for host in hosts {
                    try await host.router.waitForLog("reason=\(reason)", timeout: .seconds(30))
                    #expect(host.router.lines(containing: "bundle.refused").count == index + 1, "\(host.name)")
                    // The status document says why, and that version 2 stays in force.
                    let document = try await Self.status(statuses, host: host.name) {
                        ($0["refusedBundle"] as? [String: Any])?["reason"] as? String == reason
                    }
                    #expect(Self.bundleVersion(document) == 2, "\(host.name)")
                    #expect(((document["refusedBundle"] as? [String: Any])?["error"] as? String)?.isEmpty == false)
                }
            }
            let check = hosts[2].router.lines(containing: "reason=check").first ?? ""
            #expect(check.contains("bundle version 3: check error at 10-door.yaml:9:"), "\(check)")
            // SIGHUP considers the bundle again (refused again: it has not changed).
            hosts[2].router.signal(SIGHUP)
            try await hosts[2].router.waitForLog("bundle.refused", count: refusals.count + 1, timeout: .seconds(30))
            // The previous rules stay in force: alice still opens.
            try await tap(
                pcscd, slot: 0, router: hosts[0].router, output: output,
                expecting: "open|\(pcscd.readerName(slot: 0))|alice")

            // The source gone, a restarted host runs the bundle it kept.
            try await server.stop()
            try await hosts[1].router.terminate()
            hosts[1] = try hosts[1].restart(environment: environment, logName: "router-3.log")
            try await hosts[1].router.waitForLog("bundle.restored bundle.sha256=")
            try await hosts[1].router.waitForLog("bundle.fetch_failed")
            try await hosts[1].router.waitForLog("watching 1 reader")
            #expect(hosts[1].router.lines(containing: "bundle.restored")[0].contains("bundle.version=2"))
            let restored = try await Self.status(statuses, host: "host1") {
                Self.bundleVersion($0) == 2 && ($0["bundle"] as? [String: Any])?["source"] as? String != url
            }
            let keptSource = (restored["bundle"] as? [String: Any])?["source"] as? String
            #expect(keptSource?.hasSuffix("/bundle/current.trb") == true, "\(String(describing: keptSource))")
            try await tap(
                pcscd, slot: 1, router: hosts[1].router, output: output,
                expecting: "open|\(pcscd.readerName(slot: 1))|alice")
            for host in hosts where host.router.isRunning { try await host.router.terminate() }
            await broker.stop()
        }
    }

    /// Bundles from an MQTT topic's retained message, over TLS with the broker's private CA: `bundle publish`
    /// puts each version there; both hosts take version 1 and 2; version 1 published again is refused as older by
    /// the first host, with the reason in its status document, and taken by the second, which allows a rollback;
    /// restarted with the broker down, the first runs version 2, which it kept.
    @Test func bundlesFromARetainedMQTTMessage() async throws {
        try await withPCSCD { pcscd in
            let root = NSTemporaryDirectory() + "fleet-mqtt-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let broker = try await MosquittoBroker.start(tls: true)
            let statuses = try await MQTTSubscriber(broker: broker, filter: "tagrouter/+/status")
            let environment = pcscd.environment.merging(Self.brokerEnvironment) { $1 }.merging([
                "TAGROUTER_BUNDLE_CA": broker.caFile,
                "TAGROUTER_BUNDLE_MQTT_USERNAME": MosquittoBroker.username,
                "TAGROUTER_BUNDLE_MQTT_PASSWORD": MosquittoBroker.password,
            ]) { $1 }
            let keygen = try await TagRouterBinary.run(
                ["bundle", "keygen", "--out", root + "/fleet"], environment: environment)
            #expect(keygen.status == 0, "\(keygen.standardError)")
            let admin = root + "/admin"
            try FileManager.default.createDirectory(atPath: admin, withIntermediateDirectories: true)
            func write(tags: [(String, [UInt8])]) throws {
                for entry in Self.folder(output: root + "/doors.txt", tags: tags) {
                    try entry.content.write(to: URL(fileURLWithPath: admin + "/" + entry.path))
                }
            }
            try write(tags: [("bob", [0x04, 1, 2, 3, 4, 5, 6])])
            _ = try await Self.pack(admin, root: root, version: 1, environment: environment)
            try write(tags: [("bob", [0x04, 1, 2, 3, 4, 5, 6]), ("carol", [0x04, 9, 9, 9, 9, 9, 9])])
            _ = try await Self.pack(admin, root: root, version: 2, environment: environment)
            let brokerArgument = "127.0.0.1:\(broker.port)"
            func publish(_ version: Int) async throws {
                let published = try await TagRouterBinary.run(
                    [
                        "bundle", "publish", "--broker", brokerArgument, "--topic", "site/bundle", "--key",
                        root + "/fleet.pub", root + "/v\(version).trb",
                    ], environment: environment)
                #expect(published.status == 0, "\(published.standardError)")
                #expect(
                    published.standardOutput.contains("published to mqtt://\(brokerArgument) on site/bundle"),
                    "\(published.standardOutput)")
            }
            // Nothing is published that does not verify.
            let unsigned = try await TagRouterBinary.run(
                ["bundle", "publish", "--broker", brokerArgument, "--key", root + "/fleet.pub", admin + "/tags.yaml"],
                environment: environment)
            #expect(unsigned.status == 1 && unsigned.standardError.contains("nothing published"))
            try await publish(1)

            let source = "mqtts://localhost:\(try #require(broker.tlsPort))/site/bundle"
            var hosts: [Host] = []
            for (index, rollback) in [false, true].enumerated() {
                let directory = root + "/host\(index)"
                try FileManager.default.createDirectory(
                    atPath: directory + "/overlay", withIntermediateDirectories: true)
                try Self.overlay(host: "mqtt-host\(index)", port: broker.port).write(
                    toFile: directory + "/overlay/00-host.yaml", atomically: true, encoding: .utf8)
                let arguments =
                    [
                        "--rules", directory + "/overlay", "--state-dir", directory + "/state", "--reader",
                        "no such reader", "--bundle-from", source, "--bundle-key", root + "/fleet.pub",
                    ] + (rollback ? ["--bundle-allow-rollback"] : [])
                let router = try RouterProcess(arguments: arguments, environment: environment, directory: directory)
                hosts.append(
                    Host(name: "mqtt-host\(index)", directory: directory, arguments: arguments, router: router))
            }
            defer { for host in hosts { host.router.kill() } }
            for host in hosts {
                try await host.router.waitForLog("bundle.applied", timeout: .seconds(30))
                try await Self.status(statuses, host: host.name) { Self.bundleVersion($0) == 1 }
            }
            try await publish(2)
            for host in hosts {
                try await host.router.waitForLog("bundle.version=2", timeout: .seconds(30))
                let document = try await Self.status(statuses, host: host.name) { Self.bundleVersion($0) == 2 }
                #expect((document["bundle"] as? [String: Any])?["source"] as? String == source)
            }
            try await publish(1)
            let refused = try await Self.status(statuses, host: "mqtt-host0") {
                ($0["refusedBundle"] as? [String: Any])?["reason"] as? String == "older"
            }
            #expect(Self.bundleVersion(refused) == 2)
            let error = (refused["refusedBundle"] as? [String: Any])?["error"] as? String
            #expect(error?.contains("(no rollback)") == true, "\(String(describing: error))")
            try await hosts[1].router.waitForLog("bundle.rolled_back")
            try await Self.status(statuses, host: "mqtt-host1") { Self.bundleVersion($0) == 1 }

            // The broker down, a restarted host runs the bundle it kept.
            try await hosts[0].router.terminate()
            await broker.stop()
            hosts[0] = try hosts[0].restart(environment: environment, logName: "router-2.log")
            try await hosts[0].router.waitForLog("bundle.restored bundle.sha256=")
            #expect(hosts[0].router.lines(containing: "bundle.restored")[0].contains("bundle.version=2"))
            try await hosts[0].router.waitForLog("bundle.fetch_failed")
            for host in hosts where host.router.isRunning { try await host.router.terminate() }
        }
    }

    /// The broker's credentials, for the hosts' `mqtt:` blocks, `fleet status` and `bundle publish`, and a quick
    /// reconnection.
    static let brokerEnvironment = [
        "MQTT_USER": MosquittoBroker.username, "MQTT_PASSWORD": MosquittoBroker.password,
        "TAGROUTER_MQTT_USERNAME": MosquittoBroker.username, "TAGROUTER_MQTT_PASSWORD": MosquittoBroker.password,
        "TAGROUTER_MQTT_RECONNECT_MIN_MS": "200", "TAGROUTER_MQTT_RECONNECT_MAX_MS": "1000",
    ]

    /// A host's overlay: its broker settings, with its client id.
    static func overlay(host: String, port: UInt16) -> String {
        """
        version: 1
        mqtt:
          url: "mqtt://127.0.0.1:\(port)"
          username: "${MQTT_USER}"
          password: "${MQTT_PASSWORD}"
          clientId: \(host)
        rules: []

        """
    }

    /// The version of the bundle in force in a status document, if any.
    static func bundleVersion(_ document: [String: Any]) -> Int? {
        (document["bundle"] as? [String: Any])?["version"] as? Int
    }

    /// Waits for a host's latest status document to satisfy `predicate`, and returns it.
    @discardableResult
    static func status(
        _ subscriber: MQTTSubscriber, host: String, timeout: Duration = .seconds(30),
        where predicate: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let latest = subscriber.messages(on: "tagrouter/\(host)/status").last.flatMap {
                try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
            }
            if let latest, predicate(latest) { return latest }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("\(host)'s status document is not as expected: \(String(describing: latest))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// What `tagrouter fleet status --json` says of each host, and its exit status.
    struct FleetView {
        struct Row {
            var state: String?
            var behind: Bool
            var version: Int?
            var synchronized: Bool
        }
        var hosts: [String: Row]
        var status: Int32
        var standardOutput: String
    }

    /// Runs `tagrouter fleet status --json` against the broker.
    static func fleetStatus(broker: MosquittoBroker, environment: [String: String]) async throws -> FleetView {
        let result = try await TagRouterBinary.run(
            ["fleet", "status", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--json", "--wait", "1s"],
            environment: environment)
        let document = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        var rows: [String: FleetView.Row] = [:]
        for host in document?["hosts"] as? [[String: Any]] ?? [] {
            let status = host["status"] as? [String: Any] ?? [:]
            rows[host["host"] as? String ?? ""] = FleetView.Row(
                state: status["state"] as? String, behind: host["behind"] as? Bool ?? false,
                version: bundleVersion(status),
                synchronized: (status["clock"] as? [String: Any])?["synchronized"] as? Bool ?? false)
        }
        return FleetView(hosts: rows, status: result.status, standardOutput: result.standardOutput)
    }

    /// Presents alice's fob on a slot.
    static func present(_ pcscd: PrivatePCSCD, slot: Int) throws -> PresentedCard {
        var options = Type2Card.Options(model: .ntag213)
        options.uid = alice
        let card = try Type2Card(model: .ntag213, message: [], options: options)
        return try VirtualReader(port: pcscd.vpcdPort(slot: slot), logger: Logger(label: "test")).present(card)
    }

    /// `tagrouter bundle pack` of the administrator's folder: the bundle file's bytes.
    static func pack(_ folder: String, root: String, version: Int, environment: [String: String]) async throws
        -> Data
    {
        let file = root + "/v\(version).trb"
        let packed = try await TagRouterBinary.run(
            ["bundle", "pack", "--key", root + "/fleet.key", "--version", "\(version)", "--out", file, folder],
            environment: environment)
        guard packed.status == 0 else {
            throw HarnessError("bundle pack failed: \(packed.standardOutput)\(packed.standardError)")
        }
        return try Data(contentsOf: URL(fileURLWithPath: file))
    }

    /// Presents alice's fob on a slot, waits for the door's line, and takes it away.
    func tap(
        _ pcscd: PrivatePCSCD, slot: Int, router: RouterProcess, output: String, expecting line: String
    ) async throws {
        let lines = { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n") }
        let before = lines().count
        let tag = try Self.present(pcscd, slot: slot)
        let deadline = ContinuousClock.now + .seconds(15)
        while lines().count <= before {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("no door line after a tap on slot \(slot):\n\(router.log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(lines().last.map(String.init) == line)
        let marker = "pcsc.card.removed reader.name=\"\(pcscd.readerName(slot: slot))\""
        let removed = router.lines(containing: marker).count
        await tag.remove()
        try await router.waitForLog(marker, count: removed + 1)
    }
}
