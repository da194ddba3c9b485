import Foundation
import Synchronization

/// The one directory of this test process where private pcscd instances keep their socket, configuration and
/// log. Created on first use, when `PCSCLITE_CSOCK_NAME` is set to its socket (before any pcsc-lite context:
/// libpcsclite reads it once), and removed at exit.
enum HarnessDirectory {
    private static let path = Mutex<String?>(nil)

    static func shared() throws -> String {
        try path.withLock { path in
            if let path { return path }
            removeLeftovers()
            let created = NSTemporaryDirectory() + "tagrouter-pcscd-\(getpid())"
            try? FileManager.default.removeItem(atPath: created)
            try FileManager.default.createDirectory(atPath: created + "/run", withIntermediateDirectories: true)
            setenv("PCSCLITE_CSOCK_NAME", created + "/run/pcscd.comm", 1)
            atexit { HarnessDirectory.removeOwn() }
            path = created
            return created
        }
    }

    private static func removeOwn() {
        try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "tagrouter-pcscd-\(getpid())")
    }

    /// Removes directories left by test processes that died without cleaning up, and stops the pcscd each had
    /// started (checked by its command line naming that directory).
    private static func removeLeftovers() {
        let temporary = NSTemporaryDirectory()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix("tagrouter-pcscd-") {
            guard let owner = Int32(name.dropFirst("tagrouter-pcscd-".count)), owner > 1, kill(owner, 0) != 0 else {
                continue
            }
            let directory = temporary + name
            if let text = try? String(contentsOfFile: directory + "/run/pcscd.pid", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1,
                let commandLine = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
                commandLine.contains(directory)
            {
                kill(pid, SIGKILL)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
