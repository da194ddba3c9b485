import AsyncHTTPClient
import Benchmark
import Foundation
import Logging
import NIOCore
import NIOPosix
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
        let target = receiver.count + count
        for _ in 0..<count { try worker.enqueue(request()) }
        await receiver.arrival(of: target)
    }

    /// Enqueues one delivery and waits until the receiver has it, measuring `enqueue` alone (the insert, and the
    /// first attempt's start on this thread up to AsyncHTTPClient's hand-off to its event loop) or up to the arrival.
    func deliverOne(measuring benchmark: Benchmark, toArrival: Bool) async throws {
        let target = receiver.count + 1
        let request = request()
        benchmark.startMeasurement()
        try worker.enqueue(request)
        if !toArrival { benchmark.stopMeasurement() }
        await receiver.arrival(of: target)
        if toArrival { benchmark.stopMeasurement() }
    }

    /// A tap's signed delivery, as the dispatcher renders it.
    func request() -> Delivery {
        Delivery.webhook(
            url: "http://127.0.0.1:\(receiver.port)/hook",
            body: Array(#"{"id":"x","rule":"bench","tag":{"uid":"04A1B2C3D4E580","tech":"type2"}}"#.utf8),
            secret: "bench-secret",
            eventID: EventID.make(),
            rule: "bench"
        )
    }
}

nonisolated(unsafe) var harness: WebhookHarness?
/// A client configured as the outbox worker's (one event loop of its own, HTTP/1.1, no redirects, no tracing span).
let directClient: HTTPClient = {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
    configuration.httpVersion = .http1Only
    configuration.decompression = .disabled
    configuration.tracing.tracer = nil
    return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup(numberOfThreads: 1), configuration: configuration)
}()

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

    // A tap's webhook on an idle worker, the receiver's connection kept alive, one delivery at a time: each
    // benchmark below starts from a harness of its own, its connections warmed.
    let oneDelivery = Benchmark.Configuration(
        metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(10), maxIterations: 2000)
    let freshHarness: Benchmark.BenchmarkSetupHook = {
        harness = try await WebhookHarness()
        try await harness!.deliver(100)
    }

    Benchmark(
        "webhook: one delivery on an idle worker, enqueue to the request at the receiver",
        configuration: oneDelivery,
        closure: { benchmark in try! await harness!.deliverOne(measuring: benchmark, toArrival: true) },
        setup: freshHarness
    )

    // The same request without the outbox (no insert): AsyncHTTPClient on one event loop, as the
    // worker configures it, sent from the benchmark's task and measured to the same point, the request at the
    // receiver. Against the benchmark above, what the outbox adds.
    Benchmark(
        "webhook: the same request through AsyncHTTPClient alone, no outbox, to the request at the receiver",
        configuration: oneDelivery,
        closure: { benchmark in
            let harness = harness!
            let target = harness.receiver.count + 1
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(harness.receiver.port)/hook")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(harness.request().body)
            benchmark.startMeasurement()
            async let response = directClient.execute(request, deadline: .now() + .seconds(10))
            await harness.receiver.arrival(of: target)
            benchmark.stopMeasurement()
            _ = try! await response.body.collect(upTo: 64 * 1024)
        },
        setup: freshHarness
    )

    Benchmark(
        "webhook: enqueue alone (the delivery inserted into the state database, its first attempt started)",
        configuration: oneDelivery,
        closure: { benchmark in try! await harness!.deliverOne(measuring: benchmark, toArrival: false) },
        setup: freshHarness
    )

    let runner = CommandRunner(logger: Logger(label: "bench"))
    Benchmark("command: start, wait and reap /bin/true") { benchmark in
        for _ in benchmark.scaledIterations {
            let result = try! await runner.run(CommandAction(argv: ["/bin/true"]))
            blackHole(result)
        }
    }
}
