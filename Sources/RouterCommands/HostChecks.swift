import Foundation
import StateStore

/// The `doctor` checks that look at the host itself: kernel modules, the state directory, the URL opener.
public enum HostChecks {
    /// Kernel modules that claim PN533-based readers (the ACS ACR122U) before pcscd can.
    public static let conflictingModules = ["pn533_usb", "pn533", "nfc"]

    /// Checks that no kernel NFC module holds the reader.
    /// - Parameter procModules: the text of `/proc/modules`.
    /// - Returns: ok, or a problem naming the loaded modules and the blacklist to install.
    public static func kernelModules(procModules: String) -> DoctorCheck {
        let loaded = Set(
            procModules.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
        let conflicts = conflictingModules.filter(loaded.contains)
        guard !conflicts.isEmpty else {
            return DoctorCheck(name: "kernel modules", status: .ok, detail: "no kernel NFC driver loaded")
        }
        return DoctorCheck(
            name: "kernel modules",
            status: .problem,
            detail:
                "\(conflicts.joined(separator: ", ")) loaded: the kernel claims PN533 readers (ACR122U) before pcscd",
            fix: "sudo install -m 0644 contrib/modprobe/blacklist-pn533.conf /etc/modprobe.d/ && "
                + "sudo modprobe -r \(conflicts.joined(separator: " ")), then replug the reader"
        )
    }

    /// Checks that the state directory exists (or can be created) and is writable.
    /// - Parameter path: the state directory.
    /// - Returns: ok, or a problem with the reason.
    public static func stateDirectory(_ path: String) -> DoctorCheck {
        let manager = FileManager.default
        do {
            try StateDirectory.create(path)
            let probe = (path as NSString).appendingPathComponent(".doctor-\(getpid())")
            guard manager.createFile(atPath: probe, contents: Data()) else {
                return DoctorCheck(
                    name: "state directory", status: .problem, detail: "\(path) is not writable",
                    fix: "give the router's user write access to \(path), or pass --state-dir")
            }
            try? manager.removeItem(atPath: probe)
            return DoctorCheck(name: "state directory", status: .ok, detail: "\(path) is writable")
        } catch {
            return DoctorCheck(
                name: "state directory", status: .problem,
                detail: "\(error)",
                fix: "create it with write access for the router's user, or pass --state-dir")
        }
    }

    /// Finds an executable by name on a search path.
    /// - Parameters:
    ///   - name: the program name, such as `xdg-open`.
    ///   - path: the `PATH` value.
    /// - Returns: the full path of the first executable found, or `nil`.
    public static func findExecutable(_ name: String, path: String) -> String? {
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }

    /// Checks that a URL opener exists for `open` rules.
    /// - Parameters:
    ///   - path: the `PATH` value.
    ///   - needed: whether any loaded rule uses `open`.
    /// - Returns: ok, a problem when `open` rules exist and no opener does, a warning otherwise.
    public static func opener(path: String, needed: Bool) -> DoctorCheck {
        if let found = findExecutable("xdg-open", path: path) {
            return DoctorCheck(name: "opener", status: .ok, detail: "open rules use \(found)")
        }
        return DoctorCheck(
            name: "opener",
            status: needed ? .problem : .warning,
            detail: needed
                ? "open rules are loaded but xdg-open is not on PATH"
                : "xdg-open is not on PATH (no open rule needs it)",
            fix:
                "sudo apt-get install xdg-utils, and run the router in your desktop session (contrib/systemd/tagrouter-user.service)"
        )
    }
}
