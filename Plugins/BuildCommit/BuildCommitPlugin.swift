import Foundation
import PackagePlugin

/// Records the git commit a build comes from, for `tagrouter --version` (docs/operations.md, "Upgrading
/// TagRouter"). A prebuild command writes `BuildCommit.swift` into the plugin's work folder, and rewrites it only
/// when the commit changes, so an unchanged tree recompiles nothing. `TAGROUTER_COMMIT` overrides git (a build
/// from a source tarball); without either the commit is `unknown`.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    /// The shell script: `$1` is the package folder, `$2` the output folder.
    static let script = #"""
        commit=${TAGROUTER_COMMIT:-$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null)}
        [ -n "$commit" ] || commit=unknown
        if [ -z "${TAGROUTER_COMMIT:-}" ] && [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
            commit="$commit-modified"
        fi
        mkdir -p "$2"
        text="enum BuildCommit { static let id = \"$commit\" }"
        [ "$(cat "$2/BuildCommit.swift" 2>/dev/null)" = "$text" ] || printf '%s\n' "$text" > "$2/BuildCommit.swift"
        """#

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        return [
            .prebuildCommand(
                displayName: "Recording the git commit of the build",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "sh", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
