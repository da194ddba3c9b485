import Foundation
import HTTPTestSupport
import LiveAssociations
import Logging
import NIOSSL
import StateStore
import TagActions
import TagRules

@testable import TagRouterCore

/// A live association file served over real HTTPS on 127.0.0.1, for a domain the test's CA certifies.
struct AssociationFixture {
    static let domain = "shop.example.test"
    static let appID = "ABCDE12345.com.example.shop"
    static let file = #"""
        {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"],
          "components": [{"/": "/buy/*", "exclude": true}, {"/": "/shop/*"}]}]}}
        """#
    static let rules = """
        version: 1
        rules:
          - name: shop
            match:
              aasa: { domain: \(domain), appID: \(appID) }
            run: [/bin/true]
        """

    let authority: TestCertificateAuthority
    let server: HTTPTestServer
    let directory: String
    let ruleSet: RuleSet

    /// Starts a server with a certificate for ``domain`` (or `certifiedName`) from a new CA (or `issuer`),
    /// speaking no TLS newer than `maximumTLSVersion` when one is given.
    static func start(
        certifiedName: String = domain, issuer: TestCertificateAuthority? = nil,
        maximumTLSVersion: TLSVersion? = nil, script: @escaping HTTPTestServer.Script
    ) async throws -> AssociationFixture {
        let authority = try TestCertificateAuthority.make()
        let issued = try (issuer ?? authority).issue(for: certifiedName)
        let server = try await HTTPTestServer.start(tls: issued, maximumTLSVersion: maximumTLSVersion, script: script)
        let directory = authority.directory + "/state"
        try FileManager.default.createDirectory(atPath: directory + "/rules", withIntermediateDirectories: true)
        try Data(rules.utf8).write(to: URL(fileURLWithPath: directory + "/rules/shop.yaml"))
        let ruleSet = try RuleSet.load(sources: [directory + "/rules"], environment: [:]).get()
        return AssociationFixture(authority: authority, server: server, directory: directory, ruleSet: ruleSet)
    }

    /// The environment a router or `tagrouter aasa refresh` needs to reach the server and trust its CA.
    var environment: [String: String] {
        [
            "TAGROUTER_AASA_CA": authority.certificate,
            "TAGROUTER_AASA_CONNECT_TO": "\(Self.domain)=127.0.0.1:\(server.port)",
        ]
    }

    /// A fetcher for the server.
    func fetcher(timeout: Duration = .seconds(5)) throws -> AssociationFetcher {
        var configuration = try AssociationFetcher.Configuration.from(environment: environment)
        configuration.timeout = timeout
        return try AssociationFetcher(configuration: configuration)
    }

    /// The state database.
    func cache() throws -> StateDatabase {
        try StateDatabase(directory: directory, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    }

    func stop() async {
        try? await server.stop()
        authority.remove()
    }

    /// A tap of a tag with this URI.
    static func event(_ uri: String) -> TagEvent {
        TagEvent(uid: "04A1B2C3D4E580", reader: "r", tech: "type2", uri: uri)
    }
}
