import Foundation
import MQTTClient
import MQTTTestSupport
import ServiceLifecycle
import StateStore
import TagActions
import TestSupport
import Testing

/// Measures, and prints, durable QoS 1 publications per second through the outbox to a real mosquitto, what a
/// tap waits for (the durable enqueue) and one publication's time from enqueue to a subscriber. Asserts that
/// every publication arrived and was marked delivered, never a time. `Benchmarks/MQTTBenchmarks` measures the
/// same with a release build.
///
/// Run: `swift test --filter MQTTThroughputMeasurement` (add `-c release` for release figures).
@Suite struct MQTTThroughputMeasurement {
    @Test func durablePublicationsPerSecondAndLatency() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "bench/#")
        try await TestEnvironment.withTemporaryDirectory { directory in
            try await MQTTPublisherTests.withPublisher(
                settings: try MQTTPublisherTests.settings(port: broker.port), directory: directory
            ) { publisher in
                try await MQTTPublisherTests.waitUntil { publisher.isConnected }
                let payload = Array(
                    #"{"ha_tag_id":"04-A1-B2-C3-D4-E5-80","id":"x","reader":"ACS ACR122U PICC Interface 00 00"}"#
                        .utf8)
                let clock = ContinuousClock()
                // Throughput: 3 rounds of 1,000, each until every PUBACK is recorded.
                var rounds: [Duration] = []
                for round in 0..<3 {
                    let start = clock.now
                    for _ in 0..<1000 {
                        _ = try publisher.enqueue(
                            MQTTPublication(
                                topic: "bench/throughput", payload: payload, eventID: EventID.make(), rule: "r"))
                    }
                    try await MQTTPublisherTests.waitUntil(timeout: .seconds(60)) {
                        try publisher.database.pendingCounts()[.mqtt] == 0
                    }
                    rounds.append(clock.now - start)
                    try await subscriber.waitFor(1000 * (round + 1), timeout: .seconds(30))
                }
                // Latency: 100 single publications, enqueue → arrival at the subscriber.
                var enqueues: [Duration] = []
                var arrivals: [Duration] = []
                for number in 0..<100 {
                    let before = subscriber.messages.count
                    let start = clock.now
                    _ = try publisher.enqueue(
                        MQTTPublication(topic: "bench/latency", payload: payload, eventID: "l\(number)", rule: "r"))
                    enqueues.append(clock.now - start)
                    while subscriber.messages.count == before { try await Task.sleep(for: .microseconds(50)) }
                    arrivals.append(clock.now - start)
                }
                #expect(subscriber.messages(on: "bench/throughput").count == 3000)
                #expect(subscriber.messages(on: "bench/latency").count == 100)
                let best = rounds.min()!
                let median = rounds.sorted()[1]
                func ms(_ duration: Duration) -> String {
                    String(
                        format: "%.2f ms",
                        Double(duration.components.attoseconds) / 1e15
                            + Double(duration.components.seconds) * 1000)
                }
                print(
                    "mqtt measurement: 1,000 durable QoS 1 publications acknowledged in \(ms(median)) median "
                        + "(≈ \(Int(1000 / (Double(median.components.attoseconds) / 1e18 + Double(median.components.seconds)))) /s), "
                        + "best \(ms(best)); a tap's enqueue \(ms(enqueues.sorted()[50])) median, "
                        + "p99 \(ms(enqueues.sorted()[98])); enqueue → subscriber \(ms(arrivals.sorted()[50])) median, "
                        + "p99 \(ms(arrivals.sorted()[98]))")
            }
        }
    }
}
