import Foundation
import HTTPTestSupport
import TestSupport
import Testing
import VirtualTag

/// Fault suite (issue 7): handlers that misbehave, a webhook receiver that is away while the router crashes,
/// and a thousand taps.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct FaultActionTests {
    /// A handler that hangs (until its 20 s timeout), one that floods standard output (until its 5 s timeout)
    /// and one that exits 3 are all running or done while good taps on both readers keep dispatching. The
    /// router's memory stays bounded under the flood, and each bad outcome is logged.
    @Test func hangingFailingAndFloodingHandlersDoNotStopTheRouter() async throws {
        let rules = """
            version: 1
            rules:
              - name: hang
                match: { domains: [hang.example.com] }
                actions:
                  - run: { argv: ["/bin/sleep", "7321"], timeout: 20s }
              - name: flood
                match: { domains: [flood.example.com] }
                actions:
                  - run: { argv: ["/usr/bin/yes", "flooding standard output"], timeout: 5s }
              - name: fail
                match: { domains: [fail.example.com] }
                run: ["/bin/sh", "-c", "echo failing >&2; exit 3"]

            """ + recordingRule(name: "door", match: "{ domains: [example.com] }", marker: "door")
        try await RouterHarness.with(rules: rules) { harness in
            let hang = try harness.present(uri: "https://hang.example.com/", slot: 0, uid: faultUID(40, 0))
            try await harness.router.waitForLog("pcsc.card.presented", count: 1)
            let flood = try harness.present(uri: "https://flood.example.com/", slot: 1, uid: faultUID(40, 1))
            try await harness.router.waitForLog("pcsc.card.presented", count: 2)
            try await harness.remove(hang, slot: 0)
            try await harness.remove(flood, slot: 1)
            let fail = try harness.present(uri: "https://fail.example.com/", slot: 0, uid: faultUID(40, 2))
            try await harness.router.waitForLog("(exit 3)")
            try await harness.remove(fail, slot: 0)

            var peakKiB = 0
            for index in 0..<6 {
                let uri = "https://example.com/meanwhile/\(index)"
                let tag = try harness.present(uri: uri, slot: index % 2, uid: faultUID(41, index))
                try await harness.waitForDispatch(containing: uri)
                try await harness.remove(tag, slot: index % 2)
                peakKiB = max(peakKiB, harness.router.residentKiB ?? 0)
            }
            // The hanging handler still runs: its tap has not been logged, while six other taps dispatched.
            #expect(harness.router.lines(containing: " tap ").filter { $0.contains("rule.name=hang") }.isEmpty)
            #expect(harness.dispatched.count == 6)

            try await harness.router.waitForLog("(timed out)", count: 2, timeout: .seconds(30))
            let hangLine = try #require(
                harness.router.lines(containing: " tap ").last { $0.contains("rule.name=hang") })
            #expect(hangLine.contains("run failed (signal 15 (timed out))"), "\(hangLine)")
            let floodLine = try #require(
                harness.router.lines(containing: " tap ").last { $0.contains("rule.name=flood") })
            #expect(floodLine.contains("(timed out)"), "\(floodLine)")
            #expect(
                harness.router.lines(containing: " tap ").last { $0.contains("rule.name=fail") }?
                    .contains("run failed (exit 3)") == true)
            #expect(peakKiB < 200 * 1024, "resident memory reached \(peakKiB) KiB during the flood")
            print("fault suite: the router's resident memory peaked at \(peakKiB) KiB while a handler flooded")
            #expect(harness.router.isRunning)

            let after = try harness.present(uri: "https://example.com/after", uid: faultUID(41, 99))
            try await harness.waitForDispatches(7)
            try await harness.remove(after, slot: 0)

            // A handler still hanging when the router is told to stop is ended with it.
            // This router's own handler (another run of this suite on the machine has its own): its child.
            let last = try harness.present(uri: "https://hang.example.com/last", uid: faultUID(40, 3))
            let router = harness.router.pid
            func hanging() -> [Int32] {
                Self.processes(commandLine: ["/bin/sleep", "7321"]).filter { Self.parent(of: $0) == router }
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while hanging().isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let handlers = hanging()
            #expect(handlers.count == 1)
            let (status, _) = try await harness.router.terminate(timeout: .seconds(8))
            await last.remove()
            #expect(status == 0)
            // Ended: no such process any more (a survivor would now be another parent's, so it is looked for by id).
            let survivors = handlers.filter { Self.processes(commandLine: ["/bin/sleep", "7321"]).contains($0) }
            #expect(survivors.isEmpty)
            let tapLines = harness.router.lines(containing: " tap ")
            print(
                "fault suite: \(tapLines.count) taps logged with 3 misbehaving handlers: \(tapLines.count { $0.contains("run ok") }) ok"
            )
        }
    }

    /// The parent process id of `pid` (the fourth field of `/proc/PID/stat`, after the parenthesised name).
    static func parent(of pid: Int32) -> Int32? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let text = String(data: data, encoding: .utf8), let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The process ids whose command line is exactly `arguments`.
    static func processes(commandLine arguments: [String]) -> [Int32] {
        let wanted = Array(arguments.joined(separator: "\0").utf8) + [0]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"), Array(data) == wanted
            else { return nil }
            return pid
        }
    }

    /// The receiver is down (nothing listens on its port). Five taps are accepted, the router is killed with SIGKILL,
    /// a new router starts on the same state directory and accepts five more taps; once the new router has tried
    /// every one of the ten deliveries and failed, the receiver comes up. Every one of the ten events must arrive at
    /// least once, and nothing else.
    @Test func webhooksSurviveAReceiverDownAndARouterKilledMidway() async throws {
        let port = try await HTTPTestServer.freePort()
        let rules = """
            version: 1
            rules:
              - name: hook
                match: { domains: [example.com] }
                webhook:
                  url: "http://127.0.0.1:\(port)/hook"

            """
        try await RouterHarness.with(rules: rules) { harness in
            var uris: [String] = []
            func tap(_ number: Int, router: RouterProcess) async throws {
                let uri = "https://example.com/event/\(number)"
                let tag = try harness.present(uri: uri, slot: number % 2, uid: faultUID(50, number))
                try await router.waitForLog(" ndef.uri=\(uri) ", timeout: .seconds(15))
                try await router.waitForLog("webhook queued", count: number % 5 + 1)
                try await harness.remove(tag, slot: number % 2, router: router)
                uris.append(uri)
            }
            for number in 0..<5 { try await tap(number, router: harness.router) }
            harness.router.kill()
            let second = try harness.startAnotherRouter(logName: "router-after-kill.log")
            try await second.waitForLog(RouterHarness.readerAdded, count: 2)
            for number in 5..<10 { try await tap(number, router: second) }
            // Down until the second router has failed an attempt of each delivery, the first router's five included.
            let triedDeadline = ContinuousClock.now + .seconds(60)
            func tried() -> Set<Substring> {
                Set(
                    second.lines(containing: "webhook attempt failed").compactMap { line in
                        line.split(separator: " ").first { $0.hasPrefix("event.id=") }
                    })
            }
            while tried().count < 10 {
                guard ContinuousClock.now < triedDeadline else {
                    Issue.record("the second router tried \(tried().count) of 10 deliveries:\n\(second.log)")
                    return
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let upAt = ContinuousClock.now
            let server = try await HTTPTestServer.start(port: port) { _, _ in .status(204) }
            let deadline = ContinuousClock.now + .seconds(120)
            var delivered = Set<String>()
            while !Set(uris).isSubset(of: delivered), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                delivered = Set(
                    server.requests.compactMap { request in
                        (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["uri"]
                            as? String
                    })
            }
            #expect(Set(uris).isSubset(of: delivered), "missing: \(Set(uris).subtracting(delivered).sorted())")
            #expect(delivered.isSubset(of: Set(uris)))
            #expect(server.requests.allSatisfy { $0.receivedAt >= upAt })
            let history = try await TagRouterBinary.run(
                ["history", "--state-dir", harness.directory + "/state", "--json"],
                environment: harness.pcscd.environment)
            #expect(history.status == 0)
            // Both routers' taps and deliveries are in the one state database, each once.
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any])
            let deliveries = try #require(report["deliveries"] as? [[String: Any]])
            let taps = try #require(report["taps"] as? [[String: Any]])
            #expect(deliveries.count == 10)
            #expect(Set(deliveries.compactMap { $0["eventId"] as? String }).count == 10)
            #expect(taps.count == uris.count)
            #expect(Set(taps.compactMap { $0["uri"] as? String }) == Set(uris))
            #expect(second.isRunning)
            try await second.terminate()
            try await server.stop()
        }
    }

    /// Two readers tapped at the same time, `TAGROUTER_INTERLEAVED_TAPS` tags each (50 in `make test`, 500 in
    /// `make soak`), every tag its own UID and URI: each dispatched exactly once. A tag stays until its dispatch
    /// is seen (pcscd polls vpcd every 400 ms; a shorter rest is a tap no reader would see), then goes.
    @Test func interleavedTapsOnTwoReadersDispatchExactlyOnceEach() async throws {
        let perReader = Int(ProcessInfo.processInfo.environment["TAGROUTER_INTERLEAVED_TAPS"] ?? "") ?? 50
        let rules =
            "version: 1\nrules:\n"
            + recordingRule(name: "door", match: "{ domains: [example.com] }", marker: "door")
        try await RouterHarness.with(rules: rules) { harness in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for slot in 0...1 {
                    group.addTask {
                        for number in 0..<perReader {
                            let uri = "https://example.com/tap/\(slot)/\(number)"
                            let tag = try harness.present(uri: uri, slot: slot, uid: faultUID(60 + slot, number))
                            try await harness.waitForDispatch(containing: "|\(uri)")
                            try await harness.remove(tag, slot: slot)
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await Task.sleep(for: .seconds(1))
            let lines = harness.dispatched
            #expect(lines.count == 2 * perReader)
            #expect(Set(lines).count == 2 * perReader)
            let expected = (0...1).flatMap { slot in
                (0..<perReader).map { "door|Virtual PCD 00 0\(slot)|https://example.com/tap/\(slot)/\($0)" }
            }
            #expect(Set(lines) == Set(expected))
            #expect(harness.router.lines(containing: " info tap ").count == 2 * perReader)
        }
    }
}
