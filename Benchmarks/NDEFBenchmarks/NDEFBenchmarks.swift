import Benchmark
import NDEF

/// A one-record URI message, 40 bytes: `https://home.example.com/door/kitchen?key=1`.
let uriMessage: [UInt8] = {
    let bytes = try! NDEFMessage(records: [URIRecord(uri: "https://home.example.com/door/kitchen?key=1").record])
        .encoded()
    precondition(bytes.count == 40, "the URI message is \(bytes.count) bytes")
    return bytes
}()

/// A Smart Poster with a URI, three titles and an action.
let smartPosterMessage: [UInt8] = try! NDEFMessage(records: [
    SmartPoster(
        uri: "https://example.com/menu",
        titles: [
            try! TextRecord(text: "Menu", language: "en"),
            try! TextRecord(text: "Speisekarte", language: "de"),
            try! TextRecord(text: "Carte", language: "fr", encoding: .utf16),
        ],
        action: .open
    ).record
]).encoded()

/// A 4 KiB message: URI, Text and MIME records in turn until it reaches 4096 bytes.
let largeMessage: [UInt8] = {
    var records: [NDEFRecord] = []
    var size = 0
    var index = 0
    while size < 3900 {
        let record: NDEFRecord
        switch index % 3 {
        case 0: record = URIRecord(uri: "https://example.com/items/\(index)").record
        case 1: record = try! TextRecord(text: "Item number \(index) on the shelf", language: "en").record
        default:
            record = NDEFRecord(
                tnf: .media, type: Array("application/json".utf8),
                payload: Array(#"{"item":\#(index),"shelf":"B"}"#.utf8))
        }
        records.append(record)
        size = try! NDEFMessage(records: records).encoded().count
        index += 1
    }
    // Fill up with a short text/plain record: 3 header bytes, 10 type bytes, the padding.
    let pad = 4096 - size - 3 - 10
    records.append(NDEFRecord(tnf: .media, type: Array("text/plain".utf8), payload: Array(repeating: 0x61, count: pad)))
    let bytes = try! NDEFMessage(records: records).encoded()
    precondition(bytes.count == 4096, "the large message is \(bytes.count) bytes")
    return bytes
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        maxDuration: .seconds(3),
        maxIterations: 10_000_000
    )

    Benchmark("decode one-record URI message (40 bytes)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try NDEFMessage(decoding: uriMessage))
        }
    }

    Benchmark("decode Smart Poster with three titles (\(smartPosterMessage.count) bytes)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try NDEFMessage(decoding: smartPosterMessage))
        }
    }

    Benchmark("decode 4 KiB multi-record message") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try NDEFMessage(decoding: largeMessage))
        }
    }
}
