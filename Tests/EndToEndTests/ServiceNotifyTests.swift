import Foundation
import TestSupport
import Testing
import VirtualTag

/// `tagrouter run` under a service manager (issue 29): readiness, watchdog pings and stopping are sent to
/// `NOTIFY_SOCKET` through libsystemd, tested with a socket of the test's own in place of systemd's.
@Suite(.needsRoot, .timeLimit(.minutes(45))) struct ServiceNotifyTests {
    static let rules =
        "version: 1\nrules:\n" + recordingRule(name: "door", match: "{ domains: [example.com] }", marker: "door")

    @Test("READY=1 once the readers are watched; WATCHDOG=1 while idle, after taps and while pcscd is away")
    func readinessAndWatchdog() async throws {
        let socket = try NotifySocket()
        // A 4 s watchdog: fed at most every second, from events that come at least every 2 s.
        let environment = ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "4000000"]
        try await RouterHarness.with(rules: Self.rules, environment: environment, waitForReaders: false) { harness in
            let ready = await socket.receive(timeout: .seconds(15))
            #expect(ready == "READY=1\nSTATUS=watching readers with 1 rule")
            // Ready means watched: both readers were reported before it.
            #expect(harness.router.lines(containing: RouterHarness.readerAdded).count == 2, "\(harness.router.log)")

            var pings = await socket.messages(within: .seconds(5))
            #expect(pings.allSatisfy { $0 == "WATCHDOG=1" }, "\(pings)")
            #expect(pings.count >= 2, "idle: \(pings)")

            let tag = try harness.present(uri: "https://example.com/notify")
            try await harness.waitForDispatch(containing: "https://example.com/notify")
            await tag.remove()
            pings = await socket.messages(within: .seconds(3))
            #expect(pings.count >= 1 && pings.allSatisfy { $0 == "WATCHDOG=1" }, "after a tap: \(pings)")

            // pcscd away is not a wedged router: the watcher's backoff keeps reporting heartbeats.
            await harness.pcscd.stop()
            try await harness.router.waitForLog("pcscd is not reachable")
            pings = await socket.messages(within: .seconds(8))
            #expect(pings.count >= 2 && pings.allSatisfy { $0 == "WATCHDOG=1" }, "pcscd away: \(pings)")
            try await harness.pcscd.restart()
            try await harness.router.waitForLog("pcscd is back", timeout: .seconds(20))

            let (status, _) = try await harness.router.terminate()
            #expect(status == 0)
            let last = await socket.messages(within: .milliseconds(500)).filter { $0 != "WATCHDOG=1" }
            #expect(last == ["STOPPING=1\nSTATUS=stopping"])
        }
    }

    @Test("without a watchdog nothing but READY=1 and STOPPING=1 is sent")
    func noWatchdogNoPings() async throws {
        let socket = try NotifySocket()
        try await RouterHarness.with(
            rules: Self.rules, environment: ["NOTIFY_SOCKET": socket.path], waitForReaders: false
        ) { harness in
            #expect(await socket.receive(timeout: .seconds(15)) == "READY=1\nSTATUS=watching readers with 1 rule")
            #expect(await socket.messages(within: .seconds(3)) == [])
            _ = try await harness.router.terminate()
            #expect(await socket.messages(within: .milliseconds(500)) == ["STOPPING=1\nSTATUS=stopping"])
        }
    }
}
