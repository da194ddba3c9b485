import ArgumentParser
import FleetBundle
import Foundation
import RouterCommands
import TagRouterCore
import Testing

@testable import tagrouter

/// `tagrouter bundle keygen`, `pack`, `verify` and `run`'s bundle options (docs/fleet.md), through the commands'
/// functions on real files.
@Suite struct BundleCommandTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "bundle-command-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path + "/rules", withIntermediateDirectories: true)
        return path
    }

    static let rule = """
        version: 1
        rules:
          - name: door
            match: { domains: [door.example] }
            run: ["/bin/true"]

        """

    @Test func keygenPackVerify() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.rule.write(toFile: root + "/rules/10-door.yaml", atomically: true, encoding: .utf8)
        let keygen = BundleCommands.keygen(out: root + "/fleet")
        #expect(keygen.status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: root + "/fleet.key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(
            BundleCommands.keygen(out: root + "/fleet").errors == [
                "\(root)/fleet.key exists; a key is never overwritten (remove it first, or choose another --out)"
            ])

        let pack = BundleCommands.pack(
            key: root + "/fleet.key", version: PositiveCount(3), out: root + "/fleet.trb", directory: root + "/rules",
            environment: [:])
        #expect(pack.status == 0, "\(pack)")
        #expect(pack.standardOutput.hasPrefix("\(root)/fleet.trb: bundle version 3, 1 file, sha256 "))

        let verified = BundleCommands.verify(keys: [root + "/fleet.pub"], file: root + "/fleet.trb")
        #expect(verified.status == 0, "\(verified)")
        let lines = verified.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasPrefix("\(root)/fleet.trb: verified, bundle version 3, created ") == true)
        #expect(lines.last?.hasPrefix("  10-door.yaml  \(Self.rule.utf8.count) bytes  sha256 ") == true)

        // Another key, and the private key given as the public one.
        _ = BundleCommands.keygen(out: root + "/other")
        let other = BundleCommands.verify(keys: [root + "/other.pub"], file: root + "/fleet.trb")
        #expect(other.status == 1)
        #expect(other.errors.first?.contains("which this host does not trust") == true)
        let wrong = BundleCommands.verify(keys: [root + "/fleet.key"], file: root + "/fleet.trb")
        #expect(
            wrong.errors == [
                "\(root)/fleet.key: this is a private key; a router is given the public key (the .pub file) only"
            ])
    }

    @Test func packRefusesRulesWithErrors() throws {
        let root = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "version: 1\nrules:\n  - name: x\n    match: { domainz: [a.example] }\n    run: [\"/bin/true\"]\n"
            .write(toFile: root + "/rules/10-bad.yaml", atomically: true, encoding: .utf8)
        _ = BundleCommands.keygen(out: root + "/fleet")
        let pack = BundleCommands.pack(
            key: root + "/fleet.key", version: PositiveCount(1), out: root + "/fleet.trb", directory: root + "/rules",
            environment: [:])
        #expect(pack.status == 1)
        #expect(pack.standardOutput.contains("\(root)/rules/10-bad.yaml:4:"))
        #expect(pack.errors == ["\(root)/rules: not packed, the rules have errors"])
        #expect(!FileManager.default.fileExists(atPath: root + "/fleet.trb"))
    }

    @Test func runParsesBundleOptions() throws {
        let command = try RunCommand.parse([
            "--bundle-from", "https://rules.example/a.trb", "--bundle-from", "http://127.0.0.1:8080/b.trb",
            "--bundle-key", "/etc/tagrouter/fleet.pub", "--bundle-poll", "5s", "--bundle-from",
            "mqtts://broker.example/site/bundle", "--bundle-allow-rollback",
        ])
        #expect(
            command.bundleFrom.map(\.description) == [
                "https://rules.example/a.trb", "http://127.0.0.1:8080/b.trb", "mqtts://broker.example/site/bundle",
            ])
        #expect(command.bundleFrom.map(\.source.topic) == [nil, nil, "site/bundle"])
        #expect(command.bundleAllowRollback)
        #expect(command.bundleKey == ["/etc/tagrouter/fleet.pub"])
        #expect(command.bundlePoll?.duration == .seconds(5))
    }

    @Test(arguments: [
        ["--bundle-from", "http://rules.example/a.trb"], ["--bundle-from", "ftp://x/a"], ["--bundle-poll", "500ms"],
        ["--bundle-poll", "soon"], ["--bundle-from", "mqtt://broker.example/t"], ["--bundle-from", "mqtts://b/t/#"],
    ])
    func runRefusesBadBundleOptions(arguments: [String]) {
        #expect(throws: (any Error).self) { try RunCommand.parse(arguments) }
    }

    @Test func learnTakesABundleFolderOrRulesNotBoth() throws {
        let command = try LearnCommand.parse(["--name", "alice", "--bundle", "/srv/fleet/rules"])
        #expect(command.bundle == "/srv/fleet/rules")
        #expect(throws: (any Error).self) {
            try LearnCommand.parse(["--name", "alice", "--bundle", "/a", "--rules", "/b"])
        }
    }
}

/// The settings file's variables (docs/fleet.md, "Sources"), and the options winning over them.
@Suite struct BundleSettingsTests {
    @Test func variablesFillWhatOptionsLeave() throws {
        let root = NSTemporaryDirectory() + "bundle-settings-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = BundleCommands.keygen(out: root + "/fleet")
        var settings = RouterSettings(rulesSources: [root], stateDirectory: root)
        try BundleSettings.apply(
            to: &settings, options: RunOptions(),
            environment: [
                "TAGROUTER_BUNDLE_FROM": "https://a.example/x.trb  http://127.0.0.1:1/y.trb",
                "TAGROUTER_BUNDLE_KEY": root + "/fleet.pub", "TAGROUTER_BUNDLE_POLL": "2m",
                "TAGROUTER_BUNDLE_CA": "/etc/ca.pem",
            ])
        #expect(settings.bundleSources.map { "\($0)" } == ["https://a.example/x.trb", "http://127.0.0.1:1/y.trb"])
        #expect(settings.bundleKeys.count == 1)
        #expect(settings.bundlePoll == .seconds(120))
        #expect(settings.bundleTrustAnchors == "/etc/ca.pem")
        #expect(!settings.bundleAllowsRollback && settings.bundleCredentials == .init())

        try BundleSettings.apply(
            to: &settings, options: RunOptions(),
            environment: [
                "TAGROUTER_BUNDLE_FROM": "mqtt://127.0.0.1", "TAGROUTER_BUNDLE_KEY": root + "/fleet.pub",
                "TAGROUTER_BUNDLE_ALLOW_ROLLBACK": "1", "TAGROUTER_BUNDLE_MQTT_USERNAME": "door",
                "TAGROUTER_BUNDLE_MQTT_PASSWORD": "secret",
            ])
        #expect(settings.bundleSources.map(\.topic) == ["tagrouter/fleet/bundle"])
        #expect(settings.bundleAllowsRollback)
        #expect(settings.bundleCredentials == .init(username: "door", password: "secret"))

        var options = RunOptions()
        options.bundlePoll = BundlePollInterval(argument: "3s")
        try BundleSettings.apply(to: &settings, options: options, environment: ["TAGROUTER_BUNDLE_POLL": "2m"])
        #expect(settings.bundlePoll == .seconds(3))
    }

    @Test(arguments: [
        (
            ["TAGROUTER_BUNDLE_FROM": "https://a.example/x.trb"],
            "--bundle-from needs --bundle-key: a host takes only bundles signed with a key it trusts"
        ),
        (
            ["TAGROUTER_BUNDLE_FROM": "http://a.example/x.trb"],
            "'http://a.example/x.trb': plain HTTP only to a loopback address (127.0.0.1, ::1, localhost); use https://"
        ),
        (["TAGROUTER_BUNDLE_KEY": "/nonexistent.pub"], "/nonexistent.pub: cannot read the key file"),
        (["TAGROUTER_BUNDLE_POLL": "0s"], "TAGROUTER_BUNDLE_POLL: '0s' is not a duration of at least 1s (60s, 5m)"),
        (["TAGROUTER_BUNDLE_ALLOW_ROLLBACK": "yes"], "TAGROUTER_BUNDLE_ALLOW_ROLLBACK: 'yes' is neither 1 nor 0"),
    ])
    func unusableSettingsAreNamed(environment: [String: String], message: String) {
        var settings = RouterSettings(rulesSources: ["/r"], stateDirectory: "/s")
        let error = #expect(throws: CommandFailure.self) {
            try BundleSettings.apply(to: &settings, options: RunOptions(), environment: environment)
        }
        #expect(error?.description == message)
    }
}
