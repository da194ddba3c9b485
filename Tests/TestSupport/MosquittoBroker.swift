import Foundation
import Synchronization

/// A private Mosquitto broker (Debian's `mosquitto`) on 127.0.0.1, started by a test with a generated
/// configuration: anonymous access off, one user in a password file made with `mosquitto_passwd`, sessions
/// persisted across restarts, and optionally a TLS listener whose CA and server certificate are made with
/// `openssl`. Stopped (SIGKILL) and its directory removed when released.
public final class MosquittoBroker: Sendable {
    /// The user the password file knows.
    public static let username = "tagrouter"
    /// That user's password.
    public static let password = "door-secret"

    /// The plain MQTT port.
    public let port: UInt16
    /// The TLS port, when started with TLS.
    public let tlsPort: UInt16?
    /// The directory of the configuration, certificates, persistence file and log.
    public let directory: String
    private let process: Mutex<ChildProcess?>

    /// The CA certificate (PEM) that signed the server certificate (TLS only).
    public var caFile: String { directory + "/ca.pem" }
    /// The broker's log.
    public var log: String { (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? "" }

    private init(port: UInt16, tlsPort: UInt16?, directory: String) {
        self.port = port
        self.tlsPort = tlsPort
        self.directory = directory
        self.process = Mutex(nil)
    }

    deinit {
        process.withLock { $0?.killAndReap() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Writes the configuration and starts the broker, waiting until it listens.
    /// - Parameter tls: also open a TLS listener with a freshly made CA and server certificate (CN localhost,
    ///   SAN localhost and 127.0.0.1).
    /// - Returns: the running broker.
    /// - Throws: ``HarnessError`` when mosquitto, mosquitto_passwd or openssl is missing or fails.
    public static func start(tls: Bool = false) async throws -> MosquittoBroker {
        let directory = NSTemporaryDirectory() + "tagrouter-mqtt-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try FreePorts.single()
        let tlsPort = tls ? try FreePorts.single(excluding: port) : nil
        let broker = MosquittoBroker(port: port, tlsPort: tlsPort, directory: directory)
        try await tool(
            "/usr/bin/mosquitto_passwd", ["-b", "-c", directory + "/passwd", username, password], in: directory)
        var configuration = """
            per_listener_settings false
            allow_anonymous false
            password_file \(directory)/passwd
            persistence true
            persistence_location \(directory)/
            log_dest file \(directory)/mosquitto.log
            log_type error
            log_type warning
            log_type notice
            log_type information
            connection_messages true
            user root
            max_queued_messages 100000
            listener \(port) 127.0.0.1

            """
        if let tlsPort {
            try await makeCertificates(in: directory)
            configuration += """
                listener \(tlsPort) 127.0.0.1
                cafile \(directory)/ca.pem
                certfile \(directory)/server.pem
                keyfile \(directory)/server.key

                """
        }
        try configuration.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try await broker.resume()
        return broker
    }

    /// Starts the broker again on the same ports (after ``stop()`` or ``kill()``), waiting until it listens.
    /// - Throws: ``HarnessError`` when it does not start within 10 s.
    public func resume() async throws {
        let child = try ChildProcess.spawn(
            "/usr/sbin/mosquitto", ["-c", directory + "/mosquitto.conf"], environment: [:],
            outputPath: directory + "/stdout.log", resetsSignals: true)
        process.withLock { $0 = child }
        let deadline = ContinuousClock.now + .seconds(10)
        var isListening: Bool { FreePorts.isListening(port) && (tlsPort.map(FreePorts.isListening) ?? true) }
        while !isListening {
            // Looked at again once the time is up: a test process stalled past the deadline between the two looks
            // (a loaded machine) must not fail a broker that is listening.
            guard ContinuousClock.now < deadline || isListening, child.isRunning else {
                let output = (try? String(contentsOfFile: directory + "/stdout.log", encoding: .utf8)) ?? ""
                throw HarnessError("mosquitto did not start on 127.0.0.1:\(port):\n\(output)\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops the broker with SIGTERM (it saves its sessions) and waits for it to end.
    public func stop() async {
        guard let child = process.withLock({ $0 }) else { return }
        child.signal(SIGTERM)
        if await child.wait(upTo: .seconds(10)) == nil { child.killAndReap() }
        while FreePorts.isListening(port) { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// Stops the broker at once with SIGKILL.
    public func kill() async {
        process.withLock { $0?.killAndReap() }
        while FreePorts.isListening(port) { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// A CA, and a server certificate it signs for localhost / 127.0.0.1, made with openssl (P-256 keys).
    private static func makeCertificates(in directory: String) async throws {
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await tool(
            "/usr/bin/openssl",
            ["req", "-x509"] + key + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=TagRouter Test CA",
            ],
            in: directory)
        try await tool(
            "/usr/bin/openssl",
            ["req"] + key + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"], in: directory)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(
            toFile: directory + "/san.cnf", atomically: true, encoding: .utf8)
        try await tool(
            "/usr/bin/openssl",
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "server.pem", "-days", "2", "-extfile", "san.cnf",
            ], in: directory)
    }

    /// Runs a tool in `directory` and throws unless it exits 0.
    private static func tool(_ path: String, _ arguments: [String], in directory: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HarnessError("\(path) is not installed: run scripts/setup")
        }
        let output = directory + "/tool.log"
        let child = try ChildProcess.spawn(
            "/usr/bin/env", ["-C", directory, path] + arguments, environment: ["PATH": "/usr/bin:/bin"],
            outputPath: output)
        guard let status = await child.wait(upTo: .seconds(30)), status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw HarnessError("\(path) \(arguments.joined(separator: " ")) failed:\n\(text)")
        }
    }
}
