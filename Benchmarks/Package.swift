// swift-tools-version: 6.1
import PackageDescription

/// Benchmarks for TagRouter's hot paths (package-benchmark). Run with `make bench`, or
/// `cd Benchmarks && swift package --disable-sandbox benchmark`.
let package = Package(
    name: "TagRouterBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TagRouter", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
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
        )
    ],
    swiftLanguageModes: [.v6]
)
