// swift-tools-version: 6.1
import PackageDescription

/// Benchmarks live in their own package so that the main build stays lean (ARCHITECTURE.md).
let package = Package(
    name: "TagRouterBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TagRouter", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "RulesBenchmarks",
            dependencies: [
                .product(name: "TagRules", package: "TagRouter"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "RulesBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
