import Foundation

/// A private mosquitto on 127.0.0.1 for the benchmarks (anonymous, no persistence), stopped at exit.
final class Broker: @unchecked Sendable {
    // @unchecked Sendable: `process` is set once in init and only read (terminate) afterwards.
    let port: Int
    private let process: Process

    init() throws {
        let directory = NSTemporaryDirectory() + "tagrouter-bench-mqtt-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = Self.freePort()
        try """
        listener \(port) 127.0.0.1
        allow_anonymous true
        persistence false
        max_queued_messages 1000000
        user root

        """.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", directory + "/mosquitto.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let process = self.process
        runAtExit { process.terminate() }
        usleep(300_000)
    }

    /// A port nothing listens on (bound and released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(fd, $0, length)
                _ = getsockname(fd, $0, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

private func runAtExit(_ body: @escaping () -> Void) {
    exitHandlers.append(body)
    if exitHandlers.count == 1 { atexit { exitHandlers.forEach { $0() } } }
}

nonisolated(unsafe) private var exitHandlers: [() -> Void] = []
