import Foundation
import Logging
import StateStore

/// Scratch space and a quiet logger for StateStore tests.
enum TestEnvironment {
    /// A fresh temporary directory, removed by `body`'s end.
    static func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let path = NSTemporaryDirectory() + "statestore-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// A logger that drops everything below error (tests assert on results, not log lines).
    static var logger: Logger {
        var logger = Logger(label: "statestore-tests")
        logger.logLevel = .critical
        return logger
    }
}

extension Delivery {
    /// A pending webhook delivery, due now.
    static func webhook(_ url: String, eventID: String, rule: String = "r") -> Delivery {
        var delivery = Delivery(
            kind: .webhook, eventID: eventID, rule: rule, target: url, method: .post, createdAt: Date(),
            retryFor: .seconds(60))
        delivery.contentType = "application/json"
        delivery.body = Array("{}".utf8)
        delivery.timeoutMilliseconds = 1000
        return delivery
    }
}
