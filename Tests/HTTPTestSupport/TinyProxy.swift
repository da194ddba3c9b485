import Foundation
import NIOCore
import NIOPosix

/// A real HTTP proxy for tests: Debian's `tinyproxy` on 127.0.0.1, started in the foreground on a free port with
/// its own configuration and log, stopped by ``stop()``.
public final class TinyProxy: Sendable {
    /// The port it listens on.
    public let port: Int
    /// Its log (`LogLevel Connect`: one line per connection, naming the `CONNECT` target).
    public let logFile: String
    private let process: Process
    private let directory: String

    private init(port: Int, logFile: String, process: Process, directory: String) {
        self.port = port
        self.logFile = logFile
        self.process = process
        self.directory = directory
    }

    /// Starts `tinyproxy` and waits until it accepts connections.
    /// - Returns: the running proxy.
    /// - Throws: when it is not installed or does not come up within 10 s.
    public static func start() async throws -> TinyProxy {
        let directory = NSTemporaryDirectory() + "tinyproxy-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try await HTTPTestServer.freePort()
        let logFile = directory + "/tinyproxy.log"
        try Data(
            """
            Port \(port)
            Listen 127.0.0.1
            Timeout 30
            LogFile "\(logFile)"
            LogLevel Connect
            MaxClients 64
            Allow 127.0.0.1

            """.utf8
        ).write(to: URL(fileURLWithPath: directory + "/tinyproxy.conf"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tinyproxy")
        process.arguments = ["-d", "-c", directory + "/tinyproxy.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let proxy = TinyProxy(port: port, logFile: logFile, process: process, directory: directory)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            {
                try? await channel.close()
                return proxy
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        proxy.stop()
        throw CertificateError("tinyproxy did not listen on 127.0.0.1:\(port) within 10 s")
    }

    /// The log so far.
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// Stops the proxy (SIGKILL: tinyproxy waits for its open tunnels on SIGTERM) and removes its directory.
    public func stop() {
        kill(process.processIdentifier, SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
