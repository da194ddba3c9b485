import Foundation

/// A private desktop session for tests of confirmations: Xvfb on a free display, a session bus of its own
/// (`dbus-daemon --session`) and, unless asked not to, Debian's `dunst` as the notification server. Everything
/// is stopped when the body ends.
public struct DesktopSession: Sendable {
    /// `DBUS_SESSION_BUS_ADDRESS` of the private bus.
    public let busAddress: String
    /// `DISPLAY` of the Xvfb server.
    public let display: String
    let directory: String

    /// The environment a program in the session needs.
    public var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": busAddress, "DISPLAY": display, "PATH": "/usr/local/bin:/usr/bin:/bin"]
    }

    /// Runs `body` in a new session.
    /// - Parameters:
    ///   - notificationServer: start `dunst`.
    ///   - body: the test.
    public static func with(
        notificationServer: Bool = true, _ body: (DesktopSession) async throws -> Void
    ) async throws {
        let directory = NSTemporaryDirectory() + "desktop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Xvfb picks a free display itself and writes its number once it accepts connections (`-displayfd`), so
        // two end-to-end processes starting a session at once never pick the same one.
        let xvfb = try ChildProcess.spawn(
            "/usr/bin/Xvfb", ["-displayfd", "1", "-nolisten", "tcp"], environment: [:],
            outputPath: directory + "/xvfb.display", errorPath: directory + "/xvfb.log")
        defer { xvfb.killAndReap() }
        var display = ""
        try await waitUntil("Xvfb to choose a display", timeout: .seconds(60)) {
            guard xvfb.isRunning else {
                let log = (try? String(contentsOfFile: directory + "/xvfb.log", encoding: .utf8)) ?? ""
                throw HarnessError("Xvfb ended with status \(xvfb.status ?? -1): \(log)")
            }
            let written = (try? String(contentsOfFile: directory + "/xvfb.display", encoding: .utf8)) ?? ""
            guard written.hasSuffix("\n"), let number = Int(written.dropLast()) else { return false }
            display = ":\(number)"
            return true
        }
        let socket = directory + "/bus"
        // A session bus that starts no service by itself: the notification server is dunst when the test starts
        // it, and nothing otherwise (the host's session services would start one).
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        let dbus = try ChildProcess.spawn(
            "/usr/bin/dbus-daemon", ["--config-file=\(directory)/bus.conf", "--nofork"], environment: [:],
            outputPath: directory + "/dbus.log", errorPath: directory + "/dbus.log")
        defer { dbus.killAndReap() }
        try await waitUntil("the session bus at \(socket)") { FileManager.default.fileExists(atPath: socket) }
        let session = DesktopSession(busAddress: "unix:path=\(socket)", display: display, directory: directory)
        var dunst: ChildProcess?
        if notificationServer {
            dunst = try ChildProcess.spawn(
                "/usr/bin/dunst", [], environment: session.environment, outputPath: directory + "/dunst.log",
                errorPath: directory + "/dunst.log")
            try await waitUntil("dunst on the session bus", timeout: .seconds(60)) {
                (try? await session.dunstctl(["is-paused"])) != nil
            }
        }
        defer { dunst?.killAndReap() }
        try await body(session)
    }

    /// Runs `body` with a text window on the screen that has the keyboard focus: an `xterm` running
    /// `cat > path`, so that what is typed into the session (`xdotool type`) lands in `path` line by line, and the
    /// pointer on it (there is no window manager: the focus follows the pointer).
    /// - Parameters:
    ///   - path: where the typed lines go.
    ///   - body: the test.
    public func withTextWindow(recordingTo path: String, _ body: () async throws -> Void) async throws {
        let xterm = try ChildProcess.spawn(
            "/usr/bin/xterm", ["-geometry", "80x10+0+0", "-e", "/bin/sh", "-c", "cat > \"$0\"", path],
            environment: environment, outputPath: directory + "/xterm.log", errorPath: directory + "/xterm.log")
        defer { xterm.killAndReap() }
        // Readiness waits, so generous ones: xterm's first start on a fresh machine, beside the other end-to-end
        // processes and CI's background builds, may take more than the usual 10 s. If xterm ends instead, they stop
        // at once, and the error says what xterm and Xvfb printed.
        func checkXterm() throws {
            guard xterm.isRunning else { throw HarnessError("xterm ended with status \(xterm.status ?? -1)") }
        }
        do {
            try await waitUntil("the xterm window", timeout: .seconds(60)) {
                try checkXterm()
                return (try? await run("xdotool", ["search", "--class", "xterm"])) != nil
            }
            try await waitUntil("cat in the xterm", timeout: .seconds(60)) {
                try checkXterm()
                return FileManager.default.fileExists(atPath: path)
            }
        } catch {
            let log = (try? String(contentsOfFile: directory + "/xterm.log", encoding: .utf8)) ?? ""
            let xvfb = (try? String(contentsOfFile: directory + "/xvfb.log", encoding: .utf8)) ?? ""
            throw HarnessError(
                "\(error); xterm printed \(log.debugDescription)\(xvfb.isEmpty ? "" : "; Xvfb printed \(xvfb.debugDescription)")"
            )
        }
        _ = try await run("xdotool", ["mousemove", "100", "50"])
        try await body()
    }

    /// Runs `dunstctl` in the session and returns what it printed; throws when it fails.
    /// - Parameter arguments: its arguments.
    public func dunstctl(_ arguments: [String]) async throws -> String {
        try await run("dunstctl", arguments)
    }

    /// Runs `dbus-send` in the session, as a client of the bus other than the notification server, and returns
    /// what it printed; throws when it fails.
    /// - Parameter arguments: its arguments.
    public func dbusSend(_ arguments: [String]) async throws -> String {
        try await run("dbus-send", arguments)
    }

    /// Runs `/usr/bin/<program>` in the session and returns what it printed; throws when it fails.
    private func run(_ program: String, _ arguments: [String]) async throws -> String {
        let output = directory + "/\(program)-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = try ChildProcess.spawn(
            "/usr/bin/" + program, arguments, environment: environment, outputPath: output, errorPath: output)
        guard let status = await process.wait(upTo: .seconds(10)) else {
            process.killAndReap()
            throw HarnessError("\(program) \(arguments.joined(separator: " ")) did not finish")
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw HarnessError("\(program) \(arguments.joined(separator: " ")): \(text)") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until dunst shows `count` notifications.
    /// - Parameter count: how many.
    public func waitForNotifications(_ count: Int) async throws {
        try await waitUntil("\(count) notifications shown") {
            (try? await dunstctl(["count", "displayed"])) == String(count)
        }
    }
}
