import Foundation
import Synchronization

/// A child process started with `posix_spawn` and reaped with `waitpid(pid, WNOHANG)`: no global SIGCHLD
/// machinery (Foundation's `Process` hung a test run once with several children starting at the same time).
/// Standard output and error go to one file; standard input is `/dev/null`; descriptors above 2 are closed.
final class ChildProcess: Sendable {
    /// The child's process id.
    let pid: pid_t
    private let exitStatus = Mutex<Int32?>(nil)

    private init(pid: pid_t) {
        self.pid = pid
    }

    /// Starts `path` with `arguments` and exactly `environment`.
    /// - Parameters:
    ///   - outputPath: the file standard output and error are appended to.
    ///   - resetsSignals: start the child with no signal blocked and default dispositions (the test runner's
    ///     blocked signals are otherwise inherited, and a child such as mosquitto would never see SIGTERM).
    static func spawn(
        _ path: String, _ arguments: [String], environment: [String: String], outputPath: String,
        errorPath: String? = nil, resetsSignals: Bool = false
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        _ = addCloseFrom(&actions, 3)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if resetsSignals {
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw HarnessError("cannot start \(path): \(String(cString: strerror(result)))")
        }
        return ChildProcess(pid: pid)
    }

    /// The exit status once the child has ended (128 + the signal number when a signal ended it), `nil` while it
    /// runs.
    var status: Int32? {
        exitStatus.withLock { known in
            if let known { return known }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            known = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            return known
        }
    }

    /// Whether the child still runs.
    var isRunning: Bool { status == nil }

    /// Waits until the child ends or `timeout` passes.
    /// - Returns: the exit status, or `nil` when it still runs.
    func wait(upTo timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return status
    }

    /// Sends a signal while the child runs (never to a pid below 2, which would reach a process group).
    func signal(_ number: Int32) {
        guard pid > 1, isRunning else { return }
        kill(pid, number)
    }

    /// Kills the child and reaps it.
    func killAndReap() {
        signal(SIGKILL)
        while isRunning {
            usleep(1_000)
        }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module leaves out because it
/// needs `_GNU_SOURCE`: close every descriptor from `lowest` up in the child.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32
