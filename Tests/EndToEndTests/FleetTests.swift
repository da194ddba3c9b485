import FleetBundle
import Foundation
import HTTPTestSupport
import Logging
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
/// the bundle it kept.
@Suite(.serialized, .timeLimit(.minutes(45))) struct FleetTests {
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
            let environment = pcscd.environment.merging(["TAGROUTER_BUNDLE_CA": authority.certificate]) { $1 }

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
            try await tap(
                pcscd, slot: 1, router: hosts[1].router, output: output,
                expecting: "open|\(pcscd.readerName(slot: 1))|alice")
            for host in hosts where host.router.isRunning { try await host.router.terminate() }
        }
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
