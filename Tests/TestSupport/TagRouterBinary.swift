import Foundation

/// Runs the built `tagrouter` executable, found next to the test bundle in the build products directory.
public enum TagRouterBinary {
    /// What a run produced.
    public struct Output: Sendable {
        /// The exit status.
        public var status: Int32
        /// Everything written to standard output.
        public var standardOutput: String
        /// Everything written to standard error.
        public var standardError: String
    }

    /// The path of the built executable.
    /// - Throws: ``HarnessError`` when it has not been built.
    public static func path() throws -> String {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidate = testBinary.deletingLastPathComponent().appendingPathComponent("tagrouter").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw HarnessError(
                "the tagrouter executable is not built at \(candidate): run `swift build --build-tests` first")
        }
        return candidate
    }

    /// Runs `tagrouter` with arguments and environment, and waits for it.
    /// - Parameters:
    ///   - arguments: the arguments after the program name.
    ///   - environment: the whole environment.
    ///   - timeout: killed (and an error thrown) after this long.
    /// - Returns: the exit status and output.
    public static func run(
        _ arguments: [String], environment: [String: String], timeout: Duration = .seconds(20)
    ) async throws -> Output {
        try await run(program: try path(), arguments, environment: environment, timeout: timeout)
    }

    /// Runs any program (a test's Python script, say) the same way, and waits for it.
    /// - Parameters:
    ///   - program: the program's path.
    ///   - arguments: the arguments after the program name.
    ///   - environment: the whole environment.
    ///   - timeout: killed (and an error thrown) after this long.
    /// - Returns: the exit status and output.
    public static func run(
        program: String, _ arguments: [String], environment: [String: String], timeout: Duration
    ) async throws -> Output {
        let directory = NSTemporaryDirectory() + "tagrouter-run-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outPath = directory + "/stdout"
        let errPath = directory + "/stderr"
        let process = try ChildProcess.spawn(
            program, arguments, environment: environment, outputPath: outPath, errorPath: errPath)
        guard let status = await process.wait(upTo: timeout) else {
            process.killAndReap()
            let name = (program as NSString).lastPathComponent
            throw HarnessError(
                "\(name) \(arguments.joined(separator: " ")) did not finish in \(timeout): "
                    + ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""))
        }
        return Output(
            status: status,
            standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}
