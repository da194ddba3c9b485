import Foundation
import HTTPTestSupport
import StateStore
import TagActions
import Testing

@Suite("Outbox crash safety: SIGKILL, restart, every delivery arrives")
struct CrashSafetyTests {
    /// Starts `outbox-child` and waits for its "queued" line.
    static func startChild(stateDirectory: String, url: String, count: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.outboxChild)
        process.arguments = [stateDirectory, url, String(count)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        if count > 0 {
            let line = pipe.fileHandleForReading.readData(ofLength: 7)
            guard line == Data("queued\n".utf8) else {
                process.terminate()
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "child said \(line)"])
            }
        }
        return process
    }

    static func kill9(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    @Test("deliveries queued to a receiver that is down survive SIGKILL and arrive after a restart")
    func deliveriesSurviveSigkill() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let port = try await HTTPTestServer.freePort()
            let url = "http://127.0.0.1:\(port)/hook"
            let count = 50
            let first = try Self.startChild(stateDirectory: directory, url: url, count: count)
            // Let it try (and fail) against the closed port until failed attempts are recorded, then kill it.
            let outbox = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let deadlineForAttempts = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadlineForAttempts,
                try outbox.history(limit: count).deliveries.allSatisfy({ $0.attempts == 0 })
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            Self.kill9(first)
            let beforeRestart = try outbox.history(limit: count).deliveries
            #expect(beforeRestart.count == count)
            #expect(beforeRestart.allSatisfy { $0.state == .pending })
            #expect(beforeRestart.contains { $0.attempts > 0 })
            #expect(first.terminationReason == .uncaughtSignal)
            #expect(first.terminationStatus == SIGKILL)

            let server = try await HTTPTestServer.start(port: port) { _, _ in .status(200) }
            let second = try Self.startChild(stateDirectory: directory, url: url, count: 0)
            defer { Self.kill9(second) }
            let deadline = ContinuousClock.now + .seconds(60)
            var eventIDs = Set<String>()
            while ContinuousClock.now < deadline {
                eventIDs = Set(server.requests.compactMap { $0.header("X-TagRouter-Event") })
                if eventIDs.count == count { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(eventIDs.count == count)
            let bodies = Set(server.requests.map { String(decoding: $0.body, as: UTF8.self) })
            #expect(bodies == Set((0..<count).map { "{\"n\":\($0)}" }))
            // At least once: a duplicate carries the same event id and the same body.
            let byEvent = Dictionary(grouping: server.requests) { $0.header("X-TagRouter-Event") ?? "" }
            #expect(byEvent.values.allSatisfy { Set($0.map(\.body)).count == 1 })
            #expect(server.requests.allSatisfy { $0.header("X-TagRouter-Signature")?.hasPrefix("sha256=") == true })
            try await server.stop()
        }
    }
}
