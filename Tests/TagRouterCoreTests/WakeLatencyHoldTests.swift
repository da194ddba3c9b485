import Foundation
import NDEF
import NFCTag
import PCSC
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

@testable import TagRouterCore

/// The CPU latency request held during taps: against the kernel's own request file (root, as `make test`
/// runs), and through the router with the request written to a plain file, where every value written can be
/// read back in order.
@Suite struct WakeLatencyHoldTests {
    private static let door = "ACS ACR122U PICC Interface 00 00"

    /// The kernel's current CPU latency target, in µs: what reading the request file returns.
    private static func kernelTarget() throws -> Int32 {
        let descriptor = open(WakeLatencyHold.path, O_RDONLY)
        try #require(descriptor >= 0, "\(WakeLatencyHold.path): \(String(cString: strerror(errno)))")
        defer { close(descriptor) }
        var value: Int32 = -1
        let count = withUnsafeMutableBytes(of: &value) { read(descriptor, $0.baseAddress, $0.count) }
        try #require(count == 4)
        return value
    }

    @Test func whileHeldTheKernelsTargetIsZeroAndHoldersAreCounted() throws {
        let hold = try WakeLatencyHold()
        let first = hold.acquire()
        #expect(try Self.kernelTarget() == 0)
        let second = hold.acquire()
        second.release()
        #expect(hold.holderCount == 1)
        #expect(try Self.kernelTarget() == 0)
        first.release()
        first.release()
        #expect(hold.holderCount == 0)
    }

    @Test func aHoldThatLastsTooLongEndsAndItsLateReleaseIsIgnored() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latency-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let hold = try WakeLatencyHold(path: path, longest: .seconds(60))
        let long = hold.acquire()
        hold.expire(now: .now + .seconds(30))
        #expect(hold.holderCount == 1)
        hold.expire(now: .now + .seconds(61))
        #expect(hold.holderCount == 0)
        let next = hold.acquire()
        // The first tap ends now: its release must not end the second one's hold.
        long.release()
        #expect(hold.holderCount == 1)
        next.release()
        #expect(hold.holderCount == 0)
        #expect(try Self.written(path) == [2_000_000_000, 0, 2_000_000_000, 0, 2_000_000_000])
    }

    @Test func theRunningServiceEndsAHoldThatLastsTooLongAndStopsOnShutdown() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latency-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let hold = try WakeLatencyHold(path: path, longest: .milliseconds(100))
        _ = hold.acquire()
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await hold.run() }
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(5)
                while hold.holderCount > 0 && clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(hold.holderCount == 0)
        #expect(try Self.written(path) == [2_000_000_000, 0, 2_000_000_000])
    }

    @Test func aMissingRequestFileIsNamedInTheError() {
        #expect {
            try WakeLatencyHold(path: "/nonexistent/cpu_dma_latency")
        } throws: { error in
            "\(error)" == "/nonexistent/cpu_dma_latency: No such file or directory"
        }
    }

    /// The values written to a plain file standing in for the request file, in order.
    private static func written(_ path: String) throws -> [Int32] {
        let data = try #require(FileManager.default.contents(atPath: path))
        return data.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count, by: 4).map { bytes.loadUnaligned(fromByteOffset: $0, as: Int32.self) }
        }
    }

    @Test func theRouterHoldsFromTheStartOfATapUntilItIsReported() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latency-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let hold = try WakeLatencyHold(path: path)
        let embedded = try EmbeddedRouter(
            rules: """
                version: 1
                rules:
                  - name: door
                    match:
                      domains: [door.example]
                    run: ["/bin/true"]
                """, wakeLatencyHold: hold)
        let door = Self.door
        embedded.cardReader.hold(door)
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await embedded.router.run() }
                embedded.send(.readerAdded(door))
                let message = try NDEFMessage(records: [URIRecord(uri: "https://door.example/a").record]).encoded()
                let tag = TagReading(uid: [4, 1, 2, 3, 4, 5, 6], technology: .type2, content: .message(message))
                embedded.cardReader.script(.tag(tag), on: door)
                embedded.send(.cardPresented(reader: door, atr: [0x3B], eventCount: 1))
                try await embedded.wait { embedded.cardReader.isHolding(door) }
                // Held while the card is read.
                #expect(hold.holderCount == 1)
                #expect(try Self.written(path) == [2_000_000_000, 0])
                embedded.cardReader.release(door)
                try await embedded.wait { embedded.history.taps.count == 1 }
                try await embedded.wait { hold.holderCount == 0 }
                // A tap no rule matches lets go too.
                let other = try NDEFMessage(records: [URIRecord(uri: "https://else.example/").record]).encoded()
                embedded.cardReader.script(
                    .tag(TagReading(uid: [4, 9, 9, 9, 9, 9, 9], technology: .type2, content: .message(other))),
                    on: door)
                embedded.send(.cardRemoved(reader: door))
                embedded.send(.cardPresented(reader: door, atr: [0x3B], eventCount: 3))
                try await embedded.wait { embedded.history.taps.count == 2 }
                try await embedded.wait { hold.holderCount == 0 }
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(embedded.performer.actions.count == 1)
        #expect(try Self.written(path) == [2_000_000_000, 0, 2_000_000_000, 0, 2_000_000_000])
    }
}
