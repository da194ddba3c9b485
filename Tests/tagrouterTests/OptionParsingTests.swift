import ArgumentParser
import Foundation
import RouterCommands
import StateStore
import Testing

@testable import tagrouter

/// Option values are checked once, as they are parsed into their types (docs/cli.md, "tagrouter run").
@Suite struct OptionParsingTests {
    @Test(arguments: [
        ["--metrics", "localhost"], ["--metrics", "127.0.0.1:70000"], ["--concurrency", "0"],
        ["--concurrency", "many"], ["--aasa-refresh", "30s"], ["--aasa-refresh", "soon"], ["--log-level", "loud"],
        ["--log-format", "xml"], ["--hold-cpus-awake"], ["--release-idle-pages"],
    ])
    func runRefuses(arguments: [String]) {
        #expect(throws: (any Error).self) { try RunCommand.parse(arguments) }
    }

    @Test func runParsesTypedValues() throws {
        let command = try RunCommand.parse([
            "--metrics", ":9464", "--concurrency", "2", "--aasa-refresh", "90m", "--log-level", "debug",
            "--log-format", "json", "--reader", "PICC", "--reader", "ACR*",
        ])
        #expect(command.metrics == HostAndPort(host: "127.0.0.1", port: 9464))
        #expect(command.concurrency.value == 2)
        #expect(command.aasaRefresh.duration == .seconds(90 * 60))
        #expect("\(command.logLevel)" == "debug")
        #expect("\(command.logFormat)" == "json")
        #expect(command.readers.filter.accepts("ACS ACR122U PICC Interface"))
        #expect(command.readers.filter.accepts("ACR1252"))
        #expect(!command.readers.filter.accepts("Virtual PCD 00 00"))
    }

    @Test func runDefaults() throws {
        let command = try RunCommand.parse([])
        #expect(command.metrics == nil)
        #expect(command.concurrency.value == 4)
        #expect(command.aasaRefresh.duration == .seconds(24 * 3600))
        #expect(command.readers.filter.accepts("any reader"))
    }

    @Test(arguments: [
        ("[::1]:9090", HostAndPort(host: "::1", port: 9090)),
        ("example.org:1", HostAndPort(host: "example.org", port: 1)),
    ])
    func addresses(text: String, address: HostAndPort) {
        #expect(HostAndPort(argument: text) == address)
    }

    @Test func matchAtIsAnInstantWithAZone() throws {
        let command = try MatchCommand.parse(["https://e.com/", "--at", "2026-12-01T20:00:00+01:00"])
        #expect(command.at?.date.timeIntervalSince1970 == 1_796_151_600)
        let fractional = try MatchCommand.parse(["", "--at", "2026-12-01T19:00:00.500Z"])
        #expect(fractional.at?.date.timeIntervalSince1970 == 1_796_151_600.5)
        #expect(throws: (any Error).self) { try MatchCommand.parse(["", "--at", "2026-12-01 20:00"]) }
        #expect(throws: (any Error).self) { try MatchCommand.parse(["", "--at", "tomorrow"]) }
    }

    @Test func learnNeedsANameAndTakesRepeatedGroups() throws {
        #expect(throws: (any Error).self) { try LearnCommand.parse([]) }
        let command = try LearnCommand.parse(["--name", "Front door, Alice", "--group", "staff", "--group", "night"])
        #expect(command.name == "Front door, Alice")
        #expect(command.group == ["staff", "night"])
        #expect(command.timeout.duration == .seconds(60))
    }

    @Test func historyLimitIsPositive() {
        #expect(throws: (any Error).self) { try HistoryCommand.parse(["--limit", "0"]) }
        #expect((try? HistoryCommand.parse(["--limit", "3"]))?.limit?.value == 3)
    }

    @Test(arguments: [
        ["--since", "yesterday"], ["--since", "2026-11-29T10:00:00"], ["--until", "2h ago"], ["--format", "xml"],
        ["--outcome", "opened"], ["--json", "--format", "csv"],
    ])
    func historyRefuses(arguments: [String]) {
        #expect(throws: (any Error).self) { try HistoryCommand.parse(arguments) }
    }

    @Test func historyParsesTimesSpansAndFilters() throws {
        let command = try HistoryCommand.parse([
            "--since", "2026-11-29T10:00:00+01:00", "--until", "2h", "--reader", "Front door", "--rule", "door",
            "--tag", "04:a1:b2", "--outcome", "denied", "--outcome", "failed", "--format", "csv",
        ])
        #expect(
            command.since == .instant(Date(timeIntervalSince1970: 1_795_942_800), written: "2026-11-29T10:00:00+01:00"))
        #expect(command.until?.date(now: Date(timeIntervalSince1970: 10_000)) == Date(timeIntervalSince1970: 2800))
        #expect(command.format == .csv)
        #expect(command.outcome.map(\.description) == ["denied", "failed"])
        #expect(command.limit == nil)
        var query = HistoryListing.Query()
        query.tag = command.tag
        let filter = query.filter(now: Date())
        #expect(filter.uid == "04A1B2")
        #expect(filter.tagName == "04:a1:b2")
    }
}
