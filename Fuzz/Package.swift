// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets for TagRouter's parsers of hostile input, in their own package so the main build stays lean.
/// Build and run with `scripts/fuzz [SECONDS] [TARGET…]` (docs/RELIABILITY.md); each target is an executable
/// whose `main` is libFuzzer's, so it must be built with `-sanitize=fuzzer` and `-parse-as-library`.
let package = Package(
    name: "TagRouterFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TagRouter", path: "..")
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"]),
        .executableTarget(
            name: "fuzz-ndef",
            dependencies: ["FuzzSupport", .product(name: "NDEF", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-type2-tlv",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-type2-reader",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-type4-cc",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-type4-reader",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-rules",
            dependencies: ["FuzzSupport", .product(name: "TagRules", package: "TagRouter")]
        ),
        // The pattern compiler and matcher are compiled here from symbolic links to TagRules' own files, so that
        // the target drives their internals directly instead of through a YAML rules file (fuzz-rules' job).
        .executableTarget(
            name: "fuzz-aasa",
            dependencies: ["FuzzSupport"]
        ),
        // RetryPolicy.swift (Foundation only) is compiled here from a symbolic link to TagActions' own file,
        // because building TagActions itself under the sanitizers pulls NIO, AsyncHTTPClient, GRDB and
        // BoringSSL.
        .executableTarget(
            name: "fuzz-webhook-answer",
            dependencies: ["FuzzSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
