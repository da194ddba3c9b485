import Foundation
import Logging

/// Paths and scratch space for TagActions tests.
enum TestEnvironment {
    /// The directory holding the built products (the test bundle, `argv-recorder`, `outbox-child`).
    static var productsDirectory: String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On macOS the test binary sits inside a .xctest bundle.
        while url.path.contains(".xctest") { url.deleteLastPathComponent() }
        return url.path
    }

    /// The built `argv-recorder`.
    static var argvRecorder: String { productsDirectory + "/argv-recorder" }

    /// The built `outbox-child`.
    static var outboxChild: String { productsDirectory + "/outbox-child" }

    /// A fresh temporary directory, removed by `body`'s end.
    static func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let path = NSTemporaryDirectory() + "tagactions-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// A logger that drops everything below error (tests assert on results, not log lines).
    static var logger: Logger {
        var logger = Logger(label: "tagactions-tests")
        logger.logLevel = .critical
        return logger
    }
}
