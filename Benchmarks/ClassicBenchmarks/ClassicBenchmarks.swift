import Benchmark
import NDEF
import NFCTag

/// A one-record URI message of 40 bytes: `https://home.example.com/door/kitchen?key=1`.
let uriMessage: [UInt8] = {
    let bytes = try! NDEFMessage(records: [URIRecord(uri: "https://home.example.com/door/kitchen?key=1").record])
        .encoded()
    precondition(bytes.count == 40, "the URI message is \(bytes.count) bytes")
    return bytes
}()

/// The fewest commands the layout allows for reading a 40-byte message (docs/tags.md): LOAD KEY, AUTHENTICATE,
/// READ × 2 for the MAD; LOAD KEY, AUTHENTICATE, READ × 3 for the 42-byte TLV.
let minimumReadCommands = 9

let commandsMetric = BenchmarkMetric.custom("commands", polarity: .prefersSmaller, useScalingFactor: false)

func cardName(_ model: MifareClassicModel) -> ATRInfo.CardName {
    switch model {
    case .mini: .mifareClassicMini
    case .classic1K: .mifareClassic1K
    case .classic4K: .mifareClassic4K
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, commandsMetric], maxDuration: .seconds(2), maxIterations: 10_000)

    for model in [MifareClassicModel.classic1K, .classic4K] {
        Benchmark("read 40-byte URI, \(model.displayName) (minimum \(minimumReadCommands) commands)") { benchmark in
            var commands = 0
            for _ in benchmark.scaledIterations {
                let card = CountingCard(model: model, message: uriMessage)
                let content = try await MifareClassicReader().read(from: card, card: cardName(model))
                precondition(content == .message(uriMessage))
                commands = card.commands
            }
            benchmark.measurement(commandsMetric, commands)
        }
        Benchmark("write 40-byte URI, \(model.displayName), formatted") { benchmark in
            var commands = 0
            for _ in benchmark.scaledIterations {
                let card = CountingCard(model: model, message: [])
                try await MifareClassicWriter(card: cardName(model)).write(uriMessage, to: card)
                commands = card.commands
            }
            benchmark.measurement(commandsMetric, commands)
        }
        Benchmark("format and write 40-byte URI, \(model.displayName), factory fresh") { benchmark in
            var commands = 0
            for _ in benchmark.scaledIterations {
                let card = CountingCard(model: model, message: nil)
                try await MifareClassicWriter(card: cardName(model)).write(uriMessage, to: card)
                commands = card.commands
            }
            benchmark.measurement(commandsMetric, commands)
        }
    }
}
