import Foundation
import HTTPTestSupport
import LiveAssociations
import Logging
import PeriodicWork
import ServiceLifecycleTestKit
import TagActions
import TagRules
import Testing

@testable import TagRouterCore

/// The services that work every so often stop at graceful shutdown, not at their next tick: each waits an hour
/// between two ticks here, so one that waited for its tick would outlive the suite's time limit.
@Suite(.timeLimit(.minutes(1)))
struct GracefulShutdownTests {
    static let hour: Duration = .seconds(3600)
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test("Periodic.every runs at once, then returns when graceful shutdown comes during its pause")
    func periodicReturnsAtGracefulShutdown() async {
        let (ran, ranOnce) = AsyncStream.makeStream(of: Void.self)
        var runs = 0
        await testGracefulShutdown { trigger in
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in ran {
                        trigger.triggerGracefulShutdown()
                        return
                    }
                }
                await Periodic.every(Self.hour) {
                    runs += 1
                    ranOnce.yield()
                }
            }
        }
        #expect(runs == 1)
    }

    @Test("Periodic.every and Periodic.pause do nothing once graceful shutdown has come")
    func nothingAfterShutdown() async {
        var runs = 0
        let paused = await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            await Periodic.every(Self.hour) { runs += 1 }
            return await Periodic.pause(for: Self.hour)
        }
        #expect(runs == 0)
        #expect(!paused)
    }

    @Test("RulesReloader returns when graceful shutdown comes while it waits to look at the files again")
    func rulesReloader() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reloader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("rules.yaml").path
        try "version: 1\nrules: []\n".write(toFile: file, atomically: true, encoding: .utf8)
        let store = RuleStore(
            sources: [file], environment: [:], initial: try RuleSet.load(sources: [file], environment: [:]).get(),
            logger: Self.quiet)
        let (logged, log) = AsyncStream.makeStream(of: String.self)
        let logger = Logger(label: "test") { _ in MessageStreamHandler(continuation: log) }
        let reloader = RulesReloader(store: store, pollInterval: Self.hour, debounce: Self.hour, logger: logger)
        await testGracefulShutdown { trigger in
            await withDiscardingTaskGroup { group in
                group.addTask { await reloader.run() }
                for await message in logged where message == "rules.watching" {
                    trigger.triggerGracefulShutdown()
                    break
                }
            }
        }
        log.finish()
    }

    @Test("AssociationRefresher returns when graceful shutdown comes while it waits for its next tick")
    func associationRefresher() async throws {
        let (requests, requested) = AsyncStream.makeStream(of: Void.self)
        let body = Array(AssociationFixture.file.utf8)
        let fixture = try await AssociationFixture.start { _, _ in
            requested.yield()
            return .status(200, headers: [("ETag", "\"v1\"")], body: body)
        }
        defer { Task { await fixture.stop() } }
        let store = RuleStore(sources: [], environment: [:], initial: fixture.ruleSet, logger: Self.quiet)
        let refresher = AssociationRefresher(
            store: store, cache: nil, fetcher: try fixture.fetcher(), interval: Self.hour, tick: Self.hour,
            logger: Self.quiet)
        try await testGracefulShutdown { trigger in
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await refresher.run() }
                for await _ in requests {
                    trigger.triggerGracefulShutdown()
                    break
                }
            }
        }
        #expect(fixture.server.requests.count == 1)
    }

    @Test("AssociationRefresher with no live domain returns when graceful shutdown comes while it sleeps")
    func associationRefresherAsleep() async throws {
        let directory = NSTemporaryDirectory() + "refresher-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("version: 1\nrules:\n  - { name: plain, match: { uid: [\"04A1\"] }, run: [/bin/true] }\n".utf8)
            .write(to: URL(fileURLWithPath: directory + "/plain.yaml"))
        let ruleSet = try RuleSet.load(sources: [directory], environment: [:]).get()
        let store = RuleStore(sources: [directory], environment: [:], initial: ruleSet, logger: Self.quiet)
        let refresher = AssociationRefresher(
            store: store, cache: nil, fetcher: try AssociationFetcher(configuration: .init()), interval: Self.hour,
            tick: .milliseconds(10),
            logger: Self.quiet)
        try await testGracefulShutdown { trigger in
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await refresher.run() }
                try await Task.sleep(for: .milliseconds(100))
                trigger.triggerGracefulShutdown()
            }
        }
    }
}

/// Hands each logged message to a stream, so a test can wait for one.
private struct MessageStreamHandler: LogHandler {
    let continuation: AsyncStream<String>.Continuation
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        continuation.yield("\(event.message)")
    }
}
