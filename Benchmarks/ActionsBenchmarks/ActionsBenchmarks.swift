import Benchmark
import Foundation
import Logging
import StateStore
import TagActions

/// The webhook path under load: a state directory, an outbox worker and a local receiver, created once.
final class WebhookHarness: Sendable {
    let receiver: Receiver
    let worker: OutboxWorker
    let directory: String

    init() async throws {
        directory = NSTemporaryDirectory() + "tagrouter-bench-" + UUID().uuidString
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        receiver = try await Receiver.start()
        worker = OutboxWorker(
            database: try StateDatabase(directory: directory, logger: logger),
            configuration: .init(userAgent: "tagrouter/bench", maxInFlight: 64, connectionsPerHost: 16),
            logger: logger
        )
        let worker = self.worker
        // The benchmark process is the service's owner here; it runs until the process ends.
        Task { try await worker.run() }
    }

    /// Enqueues `count` signed deliveries and waits until the receiver has all of them.
    func deliver(_ count: Int) async throws {
        let target = receiver.count.load(ordering: .relaxed) + count
        let body = Array(#"{"id":"x","rule":"bench","tag":{"uid":"04A1B2C3D4E580","tech":"type2"}}"#.utf8)
        for _ in 0..<count {
            try worker.enqueue(
                WebhookRequest(
                    url: "http://127.0.0.1:\(receiver.port)/hook",
                    body: body,
                    secret: "bench-secret",
                    eventID: EventID.make(),
                    rule: "bench"
                )
            )
        }
        while receiver.count.load(ordering: .relaxed) < target {
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

nonisolated(unsafe) var harness: WebhookHarness?

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .cpuTotal],
        maxDuration: .seconds(10),
        maxIterations: 1000
    )

    Benchmark(
        "webhook: 1,000 signed deliveries through the durable outbox to a local receiver",
        configuration: .init(metrics: [.wallClock, .cpuTotal], maxDuration: .seconds(15), maxIterations: 20)
    ) { _ in
        try! await harness!.deliver(1000)
    } setup: {
        harness = try await WebhookHarness()
        try await harness!.deliver(100)  // warm the connections
    }

    let runner = CommandRunner(logger: Logger(label: "bench"))
    Benchmark("command: start, wait and reap /bin/true") { benchmark in
        for _ in benchmark.scaledIterations {
            let result = try! await runner.run(CommandAction(argv: ["/bin/true"]))
            blackHole(result)
        }
    }
}
