import Foundation

/// A private mosquitto on 127.0.0.1 for the benchmarks (anonymous, no persistence), stopped at exit.
final class Broker: Sendable {
    let port: Int
    /// The broker's process id.
    let pid: pid_t

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
        // posix_spawn rather than Process: the child gets no blocked signals and no descriptor but 0, 1 and 2
        // (an inherited pipe would keep the benchmark runner waiting after this process ends).
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
        }
        _ = closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments: [String] = ["/usr/sbin/mosquitto", "-c", directory + "/mosquitto.conf"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/usr/sbin/mosquitto", &actions, &attributes, argv, environ)
        guard result == 0 else { throw CocoaError(.executableLoad) }
        self.pid = pid
        runAtExit { kill(pid, SIGKILL) }
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

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), left out of Swift's Glibc module.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32
