import Foundation

/// A pcscd of the test's own: its own socket, its own vpcd ports, started and stopped by the test.
///
/// pcscd 1.9.9 hard-codes `/run/pcscd`, so it runs in a private mount namespace (`unshare -m`, root needed)
/// where a directory of ours is bound over `/run/pcscd`. libpcsclite reads `PCSCLITE_CSOCK_NAME` once per
/// process, so every private pcscd of this process uses the same socket path, set before the first context,
/// and ``withInstance(_:)`` runs one test at a time across all suites.
public final class PrivatePCSCD: @unchecked Sendable {
    // @unchecked Sendable: `process` is only touched by the test that holds the instance (withInstance
    // serialises them).

    /// The socket clients reach pcscd through (`PCSCLITE_CSOCK_NAME`).
    public let socketPath: String
    /// vpcd's first port; slot 1 listens on the next one.
    public let basePort: UInt16
    /// The directory holding the configuration, the run directory and pcscd's log.
    public let directory: String
    private var process: ChildProcess?

    private init(directory: String, basePort: UInt16) {
        self.directory = directory
        self.socketPath = directory + "/run/pcscd.comm"
        self.basePort = basePort
    }

    /// vpcd's port for a slot (0 or 1).
    public func vpcdPort(slot: Int) -> UInt16 {
        basePort + UInt16(slot)
    }

    /// The reader name pcscd gives a slot.
    public func readerName(slot: Int) -> String {
        "Virtual PCD 00 0\(slot)"
    }

    /// pcscd's output so far, for failure messages.
    public var log: String {
        (try? String(contentsOfFile: directory + "/pcscd.log", encoding: .utf8)) ?? ""
    }

    /// The environment a child process needs to reach this pcscd.
    public var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["PCSCLITE_CSOCK_NAME": socketPath]) { _, new in new }
    }

    /// Starts a fresh private pcscd on free ports, runs `body`, and stops pcscd whatever happens.
    /// One at a time in the whole test process.
    /// - Parameter body: the test.
    /// - Returns: what `body` returned.
    /// - Throws: ``HarnessError`` when pcscd cannot be started, or what `body` threw.
    public static func withInstance<T: Sendable>(_ body: (PrivatePCSCD) async throws -> T) async throws -> T {
        await HarnessLock.shared.acquire()
        var pcscd: PrivatePCSCD?
        let result: Result<T, any Error>
        do {
            let started = PrivatePCSCD(directory: try HarnessDirectory.shared(), basePort: try FreePorts.pair())
            pcscd = started
            try started.writeConfiguration(readers: true)
            try await started.start(readers: true)
            result = .success(try await body(started))
        } catch {
            result = .failure(error)
        }
        pcscd?.stopNow()
        await HarnessLock.shared.release()
        return try result.get()
    }

    /// Stops pcscd and starts it again, as a package upgrade or crash would.
    /// - Parameters:
    ///   - killing: end pcscd with SIGKILL (a crash) instead of SIGTERM (an orderly stop).
    ///   - readers: whether the new pcscd has the vpcd readers. Without them it runs with no reader at all, as
    ///     on a machine whose reader is unplugged; the vpcd ports stay closed.
    public func restart(killing: Bool = false, readers: Bool = true) async throws {
        if killing {
            stopNow()
        } else {
            await stop()
        }
        try writeConfiguration(readers: readers)
        try await start(readers: readers)
    }

    /// Stops pcscd (SIGTERM, then SIGKILL after 3 s).
    public func stop() async {
        guard let process, process.isRunning else { return }
        process.signal(SIGTERM)
        _ = await process.wait(upTo: .seconds(3))
        stopNow()
    }

    private func stopNow() {
        process?.killAndReap()
        process = nil
    }

    private func writeConfiguration(readers: Bool) throws {
        let configuration = directory + "/conf.d"
        try? FileManager.default.removeItem(atPath: configuration)
        try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
        guard readers else { return }
        let hex = "0x" + String(basePort, radix: 16, uppercase: true)
        let text = """
            FRIENDLYNAME "Virtual PCD"
            DEVICENAME /dev/null:\(hex)
            LIBPATH /usr/lib/pcsc/drivers/serial/libifdvpcd.so
            CHANNELID \(hex)

            """
        try text.write(toFile: configuration + "/vpcd", atomically: true, encoding: .utf8)
    }

    private func start(readers: Bool) async throws {
        try? FileManager.default.removeItem(atPath: socketPath)
        let process = try ChildProcess.spawn(
            "/usr/bin/unshare",
            [
                "-m", "sh", "-c",
                "mkdir -p /run/pcscd && mount --bind \"$1\" /run/pcscd && exec pcscd -f -c \"$2\"",
                "sh", directory + "/run", directory + "/conf.d",
            ],
            environment: ProcessInfo.processInfo.environment, outputPath: directory + "/pcscd.log")
        self.process = process
        // Up to 15 s: a machine busy compiling can take seconds to start pcscd in its namespace.
        for _ in 0..<750 {
            if let status = process.status {
                throw HarnessError(
                    "private pcscd exited with status \(status) (unshare -m and mount need root "
                        + "or CAP_SYS_ADMIN; pcscd and vsmartcard-vpcd must be installed): \(self.log)")
            }
            if FileManager.default.fileExists(atPath: socketPath)
                && (!readers || (FreePorts.isListening(basePort) && FreePorts.isListening(basePort + 1)))
            {
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        stopNow()
        throw HarnessError(
            "private pcscd did not open \(socketPath) and ports \(basePort)-\(basePort + 1) in 15 s: \(self.log)")
    }
}
