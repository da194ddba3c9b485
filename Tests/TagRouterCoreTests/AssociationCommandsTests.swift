import Foundation
import HTTPTestSupport
import LiveAssociations
import StateStore
import TagActions
import Testing

@testable import RouterCommands
@testable import TagRouterCore

private let domain = AssociationFixture.domain

/// `check`, `match --explain`, `aasa refresh`, `aasa show` and `doctor`'s cache lines (docs/cli.md).
@Suite(.timeLimit(.minutes(5)))
struct AssociationCommandsTests {
    /// Never fetched: `check` warns at the rule's `aasa`, `match --explain` says why the rule does not match,
    /// `aasa show` says nothing is cached, and `doctor` has a warning for the domain.
    @Test func neverFetchedSaysSo() async throws {
        let fixture = try await AssociationFixture.start { _, _ in .status(500) }
        defer { Task { await fixture.stop() } }
        let rules = fixture.directory + "/rules"
        let check = RulesCommands.check(sources: [rules], json: false, stateDirectory: fixture.directory)
        #expect(check.status == 0)
        #expect(
            check.standardOutput.contains(
                "\(rules)/shop.yaml:5:13: warning: rule 'shop': aasa: the association file of shop.example.test has "
                    + "not been fetched yet, so the rule matches nothing (tagrouter aasa refresh fetches it)"))
        let tag = RulesCommands.Tag(
            uri: "https://\(domain)/shop/1", uid: nil, reader: "cli", tech: "type2", texts: [])
        let match = RulesCommands.match(
            tag, sources: [rules], explain: true, json: false, stateDirectory: fixture.directory)
        #expect(match.status == 2)
        #expect(match.standardOutput.contains("has not been fetched yet, so the rule matches nothing"))
        let show = AssociationCommands.show(
            domain: domain, uri: nil, sources: [rules], stateDirectory: fixture.directory, json: false)
        #expect(show.status == 0)
        #expect(show.standardOutput.contains("cached: nothing (never fetched)"))
        let checks = AssociationCommands.doctorChecks(
            for: fixture.ruleSet, stateDirectory: fixture.directory)
        #expect(checks.map(\.name) == ["aasa shop.example.test"])
        #expect(checks.first?.status == .warning)
        #expect(checks.first?.detail == "never fetched: rules shop match nothing until it is")
    }

    /// `aasa refresh` fetches into the state directory; then `check` is quiet, `match` matches, `show` prints the
    /// components and a URI's verdict (text and JSON), and `doctor` is ok.
    @Test func refreshThenShow() async throws {
        let body = Array(AssociationFixture.file.utf8)
        let fixture = try await AssociationFixture.start { _, _ in
            .status(200, headers: [("ETag", "\"e1\"")], body: body)
        }
        defer { Task { await fixture.stop() } }
        let rules = fixture.directory + "/rules"
        let refresh = await AssociationCommands.refresh(
            domains: [], sources: [rules], stateDirectory: fixture.directory, environment: fixture.environment)
        #expect(refresh.standardOutput == "shop.example.test: fetched \(body.count) bytes\n")
        #expect(refresh.errors == [])
        #expect(refresh.status == 0)

        let check = RulesCommands.check(sources: [rules], json: false, stateDirectory: fixture.directory)
        #expect(check.standardOutput == "1 rule in 1 file\n")
        let tag = RulesCommands.Tag(
            uri: "https://\(domain)/shop/1", uid: nil, reader: "cli", tech: "type2", texts: [])
        let match = RulesCommands.match(
            tag, sources: [rules], explain: true, json: false, stateDirectory: fixture.directory)
        #expect(match.status == 0)

        let show = AssociationCommands.show(
            domain: domain, uri: "https://\(domain)/buy/2", sources: [rules], stateDirectory: fixture.directory,
            json: false)
        let lines = show.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("etag: \"e1\""))
        #expect(lines.contains("rule 'shop' (\(rules)/shop.yaml:5:13), appID ABCDE12345.com.example.shop:"))
        #expect(lines.contains(#"  {"/": "/buy/*", "exclude": true}"#))
        #expect(lines.contains(#"  {"/": "/shop/*"}"#))
        #expect(lines.contains("uri: https://\(domain)/buy/2"))
        #expect(
            lines.contains(
                #"  shop: no-match: components: excluded by {"/": "/buy/*", "exclude": true} at "#
                    + "\(rules)/shop.yaml:5:13"))
        let json = AssociationCommands.show(
            domain: domain, uri: "https://\(domain)/shop/2", sources: [rules], stateDirectory: fixture.directory,
            json: true)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["domain"] as? String == domain)
        #expect((object["cache"] as? [String: Any])?["bytes"] as? Int == body.count)
        #expect(((object["verdicts"] as? [[String: Any]])?.first)?["verdict"] as? String == "matched")

        let checks = AssociationCommands.doctorChecks(for: fixture.ruleSet, stateDirectory: fixture.directory)
        #expect(checks.first?.status == .ok)
        #expect(checks.first?.detail.hasPrefix("cached, fetched 20") == true)
    }

    /// `aasa refresh` of a domain no rule uses, and a failed refresh: one sentence, exit status 1.
    @Test func refreshFailures() async throws {
        let fixture = try await AssociationFixture.start { _, _ in .status(200, body: Array("[]".utf8)) }
        defer { Task { await fixture.stop() } }
        let rules = fixture.directory + "/rules"
        let unknown = await AssociationCommands.refresh(
            domains: ["nobody.test"], sources: [rules], stateDirectory: fixture.directory,
            environment: fixture.environment)
        #expect(
            unknown.errors == ["No rule uses the association file of nobody.test; the rules use shop.example.test."])
        #expect(unknown.status == 1)
        let failed = await AssociationCommands.refresh(
            domains: [domain], sources: [rules], stateDirectory: fixture.directory, environment: fixture.environment)
        #expect(
            failed.errors == [
                "shop.example.test: not a valid AASA file: no 'applinks' object (for rule 'shop' at \(rules)/shop.yaml:5:13)"
            ])
        #expect(failed.status == 1)
        var environment = fixture.environment
        environment["TAGROUTER_AASA_CA"] = fixture.directory + "/missing.pem"
        let badCA = await AssociationCommands.refresh(
            domains: [], sources: [rules], stateDirectory: fixture.directory, environment: environment)
        #expect(badCA.status == 1)
        #expect(badCA.errors.first?.hasPrefix("Error: TAGROUTER_AASA_CA \(fixture.directory)/missing.pem: ") == true)
    }
}
