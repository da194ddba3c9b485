// swift-tools-version: 6.2
import PackageDescription

/// Benchmarks for TagRouter's hot paths (package-benchmark), in their own package so the main build stays lean.
/// Run with `make bench`, or `cd Benchmarks && swift package --disable-sandbox benchmark`.
let package = Package(
    name: "TagRouterBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TagRouter", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "NDEFBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NDEF", package: "TagRouter"),
            ],
            path: "NDEFBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "RulesBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TagRules", package: "TagRouter"),
            ],
            path: "RulesBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ClassicBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NDEF", package: "TagRouter"),
                .product(name: "NFCTag", package: "TagRouter"),
            ],
            path: "ClassicBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ActionsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TagActions", package: "TagRouter"),
                .product(name: "StateStore", package: "TagRouter"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "ActionsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Commands per tag read and write against the emulated cards, compared with the layout's minimum; a plain
        // executable (swift run -c release TagCommandCounts), no timing involved.
        .executableTarget(
            name: "TagCommandCounts",
            dependencies: [
                .product(name: "NFCTag", package: "TagRouter"),
                .product(name: "VirtualTag", package: "TagRouter"),
                .product(name: "NDEF", package: "TagRouter"),
            ],
            path: "TagCommandCounts"
        ),
        // Commands per write against the minimum the layout allows: a plain executable over counting fakes.
        .executableTarget(
            name: "WriteCommands",
            dependencies: [.product(name: "NFCTag", package: "TagRouter")],
            path: "WriteCommands"
        ),
        // The audit trail over 1,000,000 generated taps: export rate and memory, pruning (swift run -c release
        // HistoryExport); a plain executable that prints its figures and exits 1 when a target is missed.
        .executableTarget(
            name: "HistoryExport",
            dependencies: [
                .product(name: "StateStore", package: "TagRouter"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "HistoryExport"
        ),
        // The web console's door log: a page of 100 taps and the paged export over 100,000 taps
        // (docs/performance.md, "The console's door log"); a plain executable, exits 1 when a target is missed.
        .executableTarget(
            name: "ConsoleHistory",
            dependencies: [
                .product(name: "StateStore", package: "TagRouter"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "ConsoleHistory"
        ),
        .executableTarget(
            name: "MQTTBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TagActions", package: "TagRouter"),
                .product(name: "StateStore", package: "TagRouter"),
                .product(name: "TagRules", package: "TagRouter"),
                .product(name: "MQTTClient", package: "TagRouter"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "MQTTBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
