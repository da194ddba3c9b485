// swift-tools-version: 6.1
import PackageDescription

/// One settings array for every target (STYLE.md): Swift 6 language mode, strict concurrency, warnings are bugs.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "TagRouter",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tagrouter", targets: ["tagrouter"]),
        .library(name: "NDEF", targets: ["NDEF"]),
        .library(name: "NFCTag", targets: ["NFCTag"]),
        .library(name: "TagRules", targets: ["TagRules"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // pcsc-lite's headers live in /usr/include/PCSC; pkg-config would add `-pthread`, a flag SwiftPM refuses
        // with a warning, so the path is given here instead.
        .systemLibrary(name: "CPCSCLite", providers: [.apt(["libpcsclite-dev"])]),
        .target(name: "NDEF", swiftSettings: swiftSettings),
        .target(name: "NFCTag", dependencies: ["NDEF"], swiftSettings: swiftSettings),
        .target(
            name: "PCSC",
            dependencies: ["CPCSCLite", "NFCTag", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings + [.unsafeFlags(["-Xcc", "-I/usr/include/PCSC"])]
        ),
        .target(
            name: "TagRules",
            dependencies: ["NDEF", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        .target(name: "TagActions", dependencies: ["TagRules"], swiftSettings: swiftSettings),
        .target(
            name: "TagRouterCore",
            dependencies: [
                "NDEF", "NFCTag", "PCSC", "TagRules", "TagActions",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "VirtualTag",
            dependencies: ["NDEF", "NFCTag", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "tagrouter",
            dependencies: [
                "TagRouterCore", "VirtualTag", "NDEF", "NFCTag", "PCSC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: ["NDEF", "NFCTag"],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NDEFTests",
            dependencies: ["NDEF", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NFCTagTests", dependencies: ["NFCTag", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "tagrouterTests",
            dependencies: ["tagrouter", "NDEF", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PCSCTests", dependencies: ["PCSC", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "VirtualTagTests",
            dependencies: ["VirtualTag", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "PCSC", "VirtualTag", "NDEF", "NFCTag", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
