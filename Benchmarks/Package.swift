// swift-tools-version: 6.1
import PackageDescription

/// Benchmarks for TagRouter's hot paths (package-benchmark). Run with `make bench`, or
/// `cd Benchmarks && swift package --disable-sandbox benchmark`.
let package = Package(
    name: "TagRouterBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TagRouter", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    ],
    targets: [
        .executableTarget(
            name: "ActionsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "TagActions", package: "TagRouter"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "ActionsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
