import FleetBundle
import Foundation
import Logging
import TagRules
import Testing

@testable import TagRouterCore

/// A host's bundles (docs/fleet.md, "What happens when"): taken whole when newer, verified and checked with the
/// overlay; refused with their reason otherwise, the rules in force unchanged; kept for a restart.
@Suite struct BundleKeeperTests {
    static let key = BundleSigningKey()
    static let quiet = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }

    /// A state directory and an overlay folder holding one rule, `local`.
    struct Host {
        let root = NSTemporaryDirectory() + "bundle-keeper-" + UUID().uuidString
        var state: String { root + "/state" }
        var overlay: String { root + "/overlay" }

        init() throws {
            try FileManager.default.createDirectory(atPath: overlay, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            try BundleKeeperTests.rule("local").write(
                toFile: overlay + "/50-local.yaml", atomically: true, encoding: .utf8)
        }

        func keeper(keys: [BundlePublicKey] = [BundleKeeperTests.key.publicKey]) -> BundleKeeper {
            BundleKeeper(stateDirectory: state, overlay: [overlay], trustedKeys: keys, logger: BundleKeeperTests.quiet)
        }

        func store(sources: [String]) throws -> RuleStore {
            let ruleSet = try RuleSet.load(sources: sources, environment: [:]).get()
            return RuleStore(sources: sources, environment: [:], initial: ruleSet, logger: BundleKeeperTests.quiet)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    static func rule(_ name: String) -> String {
        """
        version: 1
        rules:
          - name: \(name)
            match:
              domains: [\(name).example]
            run: ["/bin/true"]

        """
    }

    static func bundle(_ version: Int, rules: [String: String], key: BundleSigningKey = key) throws -> Data {
        let entries = rules.map { SignedBundle.Entry(path: $0.key, content: Data($0.value.utf8)) }
        return try SignedBundle(packing: entries, version: version, created: Date(), key: key).data
    }

    static func names(_ store: RuleStore) -> [String] { store.ruleSet.rules.map(\.name) }

    @Test func newerBundleIsTakenWholeAndKept() throws {
        let host = try Host()
        defer { host.remove() }
        let keeper = host.keeper()
        let store = try host.store(sources: keeper.restore())
        #expect(Self.names(store) == ["local"])
        let data = try Self.bundle(3, rules: ["10-door.yaml": Self.rule("door"), "20-desk.yaml": Self.rule("desk")])
        guard case .accepted(let taken) = keeper.consider(data, from: "http://x/b", store: store) else {
            Issue.record("not accepted")
            return
        }
        #expect(taken.version == 3)
        #expect(taken.digest == SignedBundle.digest(of: data))
        // The overlay first, then the bundle's files.
        #expect(Self.names(store) == ["local", "door", "desk"])
        #expect(keeper.consider(data, from: "http://x/b", store: store) == .unchanged)
        // A restart, without the network, runs the kept bundle.
        let restarted = host.keeper()
        let sources = restarted.restore()
        #expect(sources.first == host.overlay)
        #expect(Self.names(try host.store(sources: sources)) == ["local", "door", "desk"])
        #expect(restarted.inForce?.version == taken.version && restarted.inForce?.digest == taken.digest)
        #expect(taken.source == "http://x/b" && restarted.inForce?.source == host.state + "/bundle/current.trb")
    }

    /// With rollback allowed, an older bundle is taken (logged as a rollback); the observer hears of every bundle
    /// taken or refused, and of none fetched again unchanged.
    @Test func rollbackOnlyWhenAllowed() throws {
        let host = try Host()
        defer { host.remove() }
        let keeper = BundleKeeper(
            stateDirectory: host.state, overlay: [host.overlay], trustedKeys: [Self.key.publicKey], logger: Self.quiet,
            allowsRollback: true)
        let heard = Tally()
        keeper.observe { heard.add() }
        let store = try host.store(sources: keeper.restore())
        let newer = try Self.bundle(5, rules: ["10-door.yaml": Self.rule("door")])
        _ = keeper.consider(newer, from: "s", store: store)
        #expect(keeper.consider(newer, from: "s", store: store) == .unchanged)
        guard
            case .accepted(let older) = keeper.consider(
                try Self.bundle(4, rules: ["10-door.yaml": Self.rule("old")]), from: "s", store: store)
        else {
            Issue.record("the rollback was refused")
            return
        }
        #expect(older.version == 4 && Self.names(store) == ["local", "old"])
        _ = keeper.consider(Data("not a bundle".utf8), from: "s", store: store)
        #expect(heard.value == 3)
        // The same bundle without rollback allowed is refused as older.
        let strict = host.keeper()
        let strictStore = try host.store(sources: strict.restore())
        guard
            case .refused(let refusal) = strict.consider(
                try Self.bundle(3, rules: ["10-door.yaml": Self.rule("older")]), from: "s", store: strictStore)
        else {
            Issue.record("not refused")
            return
        }
        #expect(refusal.reason == "older")
    }

    /// Each reason, with the rules in force unchanged.
    @Test func refusedBundlesChangeNothing() throws {
        let host = try Host()
        defer { host.remove() }
        let keeper = host.keeper()
        let store = try host.store(sources: keeper.restore())
        _ = keeper.consider(try Self.bundle(5, rules: ["10-door.yaml": Self.rule("door")]), from: "s", store: store)
        let inForce = keeper.inForce
        #expect(inForce?.version == 5)

        var tampered = [UInt8](try Self.bundle(6, rules: ["10-door.yaml": Self.rule("door2")]))
        tampered[tampered.count - 2] ^= 0x01
        let broken = """
            version: 1
            rules:
              - name: broken
                match:
                  domainz: [x.example]
                run: ["/bin/true"]

            """
        let cases: [(Data, String, String)] = [
            (
                try Self.bundle(6, rules: ["10-door.yaml": Self.rule("door2")], key: BundleSigningKey()),
                "untrusted-key",
                "which this host does not trust"
            ),
            (Data(tampered), "digest", "10-door.yaml (bytes"),
            (
                try Self.bundle(4, rules: ["10-door.yaml": Self.rule("door2")]), "older",
                "s: bundle version 4 is not newer than version 5 in force (no rollback)"
            ),
            (try Self.bundle(5, rules: ["10-door.yaml": Self.rule("door2")]), "older", "is not newer than version 5"),
            (
                try Self.bundle(6, rules: ["10-door.yaml": broken]), "check",
                "s: bundle version 6: check error at 10-door.yaml:5:"
            ),
            (try Self.bundle(6, rules: ["10-door.yaml": Self.rule("local")]), "check", "check error at 10-door.yaml:"),
            (Data("not a bundle".utf8), "format", "s: byte 0: not a TagRouter bundle"),
        ]
        for (data, reason, message) in cases {
            guard case .refused(let refusal) = keeper.consider(data, from: "s", store: store) else {
                Issue.record("\(reason): not refused")
                continue
            }
            #expect(refusal.reason == reason)
            #expect(refusal.message.contains(message), "\(refusal.message)")
            #expect(keeper.lastRefused == refusal)
            #expect(keeper.inForce == inForce)
            #expect(Self.names(store) == ["local", "door"])
        }
        // Only the folder in force is left in the state directory.
        let kept = try FileManager.default.contentsOfDirectory(atPath: host.state + "/bundle").sorted()
        #expect(kept == ["current.trb", "rules-v5-\(inForce!.digest.prefix(12))"])
    }

    @Test func keptBundleNoLongerTrustedIsLeftOut() throws {
        let host = try Host()
        defer { host.remove() }
        let keeper = host.keeper()
        let store = try host.store(sources: keeper.restore())
        _ = keeper.consider(try Self.bundle(2, rules: ["10-door.yaml": Self.rule("door")]), from: "s", store: store)
        let other = host.keeper(keys: [BundleSigningKey().publicKey])
        #expect(other.restore() == [host.overlay])
        #expect(other.inForce == nil)
        #expect(other.lastRefused?.reason == "untrusted-key")
    }
}
