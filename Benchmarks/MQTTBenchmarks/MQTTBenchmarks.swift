import Benchmark
import Foundation
import Logging
import MQTTClient
import StateStore
import Synchronization
import TagActions
import TagRules

/// The MQTT path under load: a local mosquitto, a state directory, an `MQTTPublisher` and a subscriber that
/// counts what arrives, created once.
final class MQTTHarness: Sendable {
    let broker: Broker
    let publisher: MQTTPublisher
    let subscriber: MQTTConnection
    let counter: Counter

    init() async throws {
        let broker = try Broker()
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let rules = """
            version: 1
            mqtt: { url: "mqtt://127.0.0.1:\(broker.port)", clientId: bench }
            rules: []

            """
        let settings = try RuleSet.load(files: [("bench.yaml", rules)], environment: [:]).get().mqtt!
        let directory = NSTemporaryDirectory() + "tagrouter-bench-" + UUID().uuidString
        let publisher = MQTTPublisher(
            settings: settings, database: try StateDatabase(directory: directory, logger: logger),
            configuration: .init(version: "bench"), logger: logger)
        // The benchmark process is the service's owner here; it runs until the process ends.
        Task { await publisher.run() }
        let counter = Counter()
        let connection = try MQTTConnection(
            options: MQTTOptions(host: "127.0.0.1", port: broker.port, clientID: "bench-subscriber")
        ) { event in
            switch event {
            case .connected: counter.connected.store(true, ordering: .relaxed)
            case .message: counter.received.add(1, ordering: .relaxed)
            default: break
            }
        }
        connection.start()
        while !counter.connected.load(ordering: .relaxed) || !publisher.isConnected {
            try await Task.sleep(for: .milliseconds(10))
        }
        try connection.subscribe("bench/#", qos: 1)
        try await Task.sleep(for: .milliseconds(200))
        self.broker = broker
        self.publisher = publisher
        self.subscriber = connection
        self.counter = counter
    }

    /// What the subscriber's callback counts.
    final class Counter: Sendable {
        let connected = Atomic<Bool>(false)
        let received = Atomic<Int>(0)
    }

    static let payload = Array(
        #"{"ha_tag_id":"04-A1-B2-C3-D4-E5-80","id":"x","reader":"ACS ACR122U PICC Interface 00 00","rule":"bench","tag":{"tech":"type2","uid":"04A1B2C3D4E580"}}"#
            .utf8)

    /// Enqueues `count` durable QoS 1 publications, and waits until the subscriber has them all and every PUBACK
    /// is recorded in the state database.
    func publish(_ count: Int) async throws {
        let target = counter.received.load(ordering: .relaxed) + count
        for _ in 0..<count {
            _ = try publisher.enqueue(
                Delivery.mqtt(
                    topic: "bench/acs_acr122u_picc_interface_00_00/tag", payload: Self.payload, eventID: EventID.make(),
                    rule: "bench"))
        }
        while counter.received.load(ordering: .relaxed) < target {
            try await Task.sleep(for: .microseconds(200))
        }
        while try publisher.database.pendingCounts()[.mqtt, default: 0] > 0 {
            try await Task.sleep(for: .microseconds(500))
        }
    }

    /// One publication, from the tap's enqueue to its arrival at the subscriber.
    func publishOne() async throws {
        let target = counter.received.load(ordering: .relaxed) + 1
        _ = try publisher.enqueue(
            Delivery.mqtt(
                topic: "bench/acs_acr122u_picc_interface_00_00/tag", payload: Self.payload, eventID: EventID.make(),
                rule: "bench"))
        while counter.received.load(ordering: .relaxed) < target {
            try await Task.sleep(for: .microseconds(20))
        }
    }
}

nonisolated(unsafe) var harness: MQTTHarness?

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .cpuTotal],
        maxDuration: .seconds(10),
        maxIterations: 1000
    )

    Benchmark(
        "mqtt: 1,000 durable QoS 1 publications through the outbox to a local mosquitto, PUBACKs recorded",
        configuration: .init(metrics: [.wallClock, .cpuTotal], maxDuration: .seconds(15), maxIterations: 20)
    ) { _ in
        try! await harness!.publish(1000)
    } setup: {
        harness = try await MQTTHarness()
        try await harness!.publish(100)  // warm up
    }

    Benchmark(
        "mqtt: what a tap waits for (durable enqueue of one QoS 1 publication)",
        configuration: .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 2000)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try! harness!.publisher.enqueue(
                    Delivery.mqtt(topic: "bench/latency", payload: MQTTHarness.payload, eventID: "e", rule: "bench")))
        }
    } setup: {
        if harness == nil { harness = try await MQTTHarness() }
    }

    Benchmark(
        "mqtt: one publication from the tap's enqueue to its arrival at a subscriber",
        configuration: .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 500)
    ) { _ in
        try! await harness!.publishOne()
    } setup: {
        if harness == nil { harness = try await MQTTHarness() }
    }
}
