import CoreMetrics
import Foundation
import Logging
import Prometheus
import Synchronization
import TagActions
import Testing

@testable import TagRouterCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches a URL, returning the status and body.
private func fetch(_ url: String) async throws -> (Int, String) {
    let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

@Test func servesThePrometheusExpositionOfTheRouterMetrics() async throws {
    let registry = PrometheusCollectorRegistry()
    let metrics = RouterMetrics(factory: PrometheusMetricsFactory(registry: registry))
    metrics.taps.increment(by: 3)
    metrics.readersPresent.record(2)
    metrics.action(ActionOutcome(kind: .run, result: .finished(.exited(0), timedOut: false)))
    let bound = Mutex<Int?>(nil)
    let server = MetricsServer(
        host: "127.0.0.1", port: 0, registry: registry, logger: Logger(label: "test"),
        onBound: { port in bound.withLock { $0 = port } })
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        var port: Int?
        for _ in 0..<200 where port == nil {
            try await Task.sleep(for: .milliseconds(10))
            port = bound.withLock { $0 }
        }
        let listening = try #require(port)
        let (status, body) = try await fetch("http://127.0.0.1:\(listening)/metrics")
        #expect(status == 200)
        #expect(body.contains("tagrouter_taps_total 3"))
        #expect(body.contains("tagrouter_readers_present 2"))
        #expect(body.contains(#"tagrouter_actions_total{kind="run",outcome="ok"} 1"#))
        let (missing, _) = try await fetch("http://127.0.0.1:\(listening)/other")
        #expect(missing == 404)
        group.cancelAll()
    }
}
