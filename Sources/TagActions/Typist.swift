import Foundation

/// How a `type:` action reaches the desktop (docs/rules.md, "`type`: a keyboard at the desk"): `wtype` in a
/// Wayland session (`WAYLAND_DISPLAY`), `xdotool type` in an X11 one (`DISPLAY`), whichever the router's session
/// has, found on `PATH` when the router starts. The text is one element of the argument vector, after `--`, never
/// through a shell.
public struct Typist: Sendable, Hashable {
    /// The program's path.
    public let path: String
    /// Whether it is `wtype` (Wayland); otherwise `xdotool` (X11).
    public let isWayland: Bool

    /// Finds the typing program of the session `environment` describes.
    /// - Parameter environment: the router's environment (`WAYLAND_DISPLAY`, `DISPLAY`, `PATH`).
    /// - Returns: the typist, or nil when the session has neither a display nor the program for it.
    public static func find(environment: [String: String]) -> Typist? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let directories = path.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        func locate(_ name: String) -> String? {
            directories.lazy.map { $0.hasSuffix("/") ? $0 + name : $0 + "/" + name }
                .first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        if environment["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true, let wtype = locate("wtype") {
            return Typist(path: wtype, isWayland: true)
        }
        if environment["DISPLAY"].map({ !$0.isEmpty }) == true, let xdotool = locate("xdotool") {
            return Typist(path: xdotool, isWayland: false)
        }
        return nil
    }

    /// The command that types `text` into the focused window.
    /// - Parameters:
    ///   - text: the rendered text (its control characters other than the rule's own were refused when rendered).
    ///   - timeout: how long the program may take.
    public func command(typing text: String, timeout: Duration = .seconds(10)) -> CommandAction {
        let argv = isWayland ? [path, "--", text] : [path, "type", "--clearmodifiers", "--", text]
        var command = CommandAction(argv: argv, timeout: timeout)
        command.usesDesktopSession = true
        return command
    }
}
