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

    /// A tap's signed delivery, as the dispatcher renders it.
    func request() -> WebhookRequest {
        WebhookRequest(
            url: "http://127.0.0.1:\(receiver.port)/hook",
            body: Array(#"{"id":"x","rule":"bench","tag":{"uid":"04A1B2C3D4E580","tech":"type2"}}"#.utf8),
            secret: "bench-secret",
            eventID: EventID.make(),
            rule: "bench"
        )
    }
}

nonisolated(unsafe) var harness: WebhookHarness?
/// A client configured as the outbox worker's (one event loop of its own, HTTP/1.1, no redirects).
let directClient: HTTPClient = {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
    configuration.httpVersion = .http1Only
    configuration.decompression = .disabled
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

    // A tap's webhook on an idle worker, the receiver's connection kept alive: `enqueue` (the insert into the state
    // database, on the tap's thread) and then the request's arrival at the receiver, one delivery at a time.
    Benchmark(
        "webhook: one delivery on an idle worker, enqueue to the request at the receiver",
        configuration: .init(
            metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(10), maxIterations: 2000)
    ) { benchmark in
        let harness = harness!
        let target = harness.receiver.count + 1
        let request = harness.request()
        benchmark.startMeasurement()
        try! harness.worker.enqueue(request)
        await harness.receiver.arrival(of: target)
        benchmark.stopMeasurement()
    } setup: {
        harness = try await WebhookHarness()
        try await harness!.deliver(100)
    }

    // The same request without the outbox: AsyncHTTPClient on one event loop, as the worker configures it, sent from
    // the benchmark's task. Against the benchmark above, what the outbox adds (the insert, the worker's wake-up).
    Benchmark(
        "webhook: the same request through AsyncHTTPClient alone, no outbox",
        configuration: .init(
            metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(10), maxIterations: 2000)
    ) { benchmark in
        let harness = harness!
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(harness.receiver.port)/hook")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(harness.request().body)
        benchmark.startMeasurement()
        let response = try! await directClient.execute(request, deadline: .now() + .seconds(10))
        _ = try! await response.body.collect(upTo: 64 * 1024)
        benchmark.stopMeasurement()
    } setup: {
        harness = try await WebhookHarness()
        try await harness!.deliver(100)
    }

    Benchmark(
        "webhook: enqueue alone (the delivery inserted into the state database)",
        configuration: .init(
            metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(10), maxIterations: 2000)
    ) { benchmark in
        let harness = harness!
        let target = harness.receiver.count + 1
        let request = harness.request()
        benchmark.startMeasurement()
        try! harness.worker.enqueue(request)
        benchmark.stopMeasurement()
        await harness.receiver.arrival(of: target)
    } setup: {
        harness = try await WebhookHarness()
        try await harness!.deliver(100)
    }

    let runner = CommandRunner(logger: Logger(label: "bench"))
    Benchmark("command: start, wait and reap /bin/true") { benchmark in
        for _ in benchmark.scaledIterations {
            let result = try! await runner.run(CommandAction(argv: ["/bin/true"]))
            blackHole(result)
        }
    }
}
