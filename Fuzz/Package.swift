// swift-tools-version: 6.2
import PackageDescription

/// libFuzzer targets for TagRouter's parsers of hostile input, in their own package so the main build stays lean.
/// Build and run with `scripts/fuzz [SECONDS] [TARGET…]` (docs/RELIABILITY.md); each target is an executable
/// whose `main` is libFuzzer's, so it must be built with `-sanitize=fuzzer` and `-parse-as-library`.
let package = Package(
    name: "TagRouterFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // TagRouter without its default trait SwiftCrypto and with FuzzingStandIns: CryptoPrimitives' stand-ins
        // instead of swift-crypto, so that nothing here builds BoringSSL (docs/RELIABILITY.md, "Fuzzing").
        .package(name: "TagRouter", path: "..", traits: ["FuzzingStandIns"])
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
        // The Type 2 write planner: rip-safety of every prefix of its writes.
        .executableTarget(
            name: "fuzz-type2-write-plan",
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
            name: "fuzz-mad",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-classic-reader",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-type5-reader",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-felica-attribute",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-type3-reader",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-type1-reader",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        // Type 5 and Type 3 writes on a tag that vanishes after a fuzzed number of commands, read back.
        .executableTarget(
            name: "fuzz-writers",
            dependencies: ["FuzzSupport", .product(name: "NFCTag", package: "TagRouter")]
        ),
        .executableTarget(
            name: "fuzz-rules",
            dependencies: ["FuzzSupport", .product(name: "TagRules", package: "TagRouter")]
        ),
        // The pattern engine driven directly, instead of through a YAML rules file (fuzz-rules' job).
        // Doors: the tags file, and the SUN message in a URI's query.
        .executableTarget(
            name: "fuzz-doors",
            dependencies: [
                "FuzzSupport", .product(name: "NDEF", package: "TagRouter"),
                .product(name: "SUNMessage", package: "TagRouter"), .product(name: "TagRules", package: "TagRouter"),
            ]
        ),
        .executableTarget(
            name: "fuzz-aasa",
            dependencies: ["FuzzSupport", .product(name: "AASAPatterns", package: "TagRouter")]
        ),
        // The bundle file's parsers, which read files fetched from a URL or an MQTT topic: its layout and its
        // manifest (BundleFormat), without swift-crypto.
        .executableTarget(
            name: "fuzz-bundle",
            dependencies: ["FuzzSupport", .product(name: "BundleFormat", package: "TagRouter")]
        ),
        // WebhookRetry is the Foundation-only part of TagActions: building TagActions itself under the sanitizers
        // would pull NIO, AsyncHTTPClient, GRDB and BoringSSL.
        .executableTarget(
            name: "fuzz-webhook-answer",
            dependencies: ["FuzzSupport", .product(name: "WebhookRetry", package: "TagRouter")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
