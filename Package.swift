// swift-tools-version: 6.2
import PackageDescription

/// One settings array for every target (docs/development.md, "Conventions"): Swift 6 language mode, strict concurrency, warnings are bugs.
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
        .library(name: "AASAPatterns", targets: ["AASAPatterns"]),
        .library(name: "TagRules", targets: ["TagRules"]),
        .library(name: "StateStore", targets: ["StateStore"]),
        .library(name: "LiveAssociations", targets: ["LiveAssociations"]),
        .library(name: "TagActions", targets: ["TagActions"]),
        .library(name: "WebhookRetry", targets: ["WebhookRetry"]),
        .library(name: "VirtualTag", targets: ["VirtualTag"]),
        .library(name: "MQTTClient", targets: ["MQTTClient"]),
        .library(name: "BundleFormat", targets: ["BundleFormat"]),
        .library(name: "SUNMessage", targets: ["SUNMessage"]),
        .library(name: "FleetBundle", targets: ["FleetBundle"]),
    ],
    // SwiftCrypto, the default, is every build's: swift-crypto under CryptoPrimitives. FuzzingStandIns is the fuzz
    // build's alone (Fuzz/Package.swift): CryptoPrimitives without swift-crypto, so that the parsers the fuzz targets
    // reach build without BoringSSL.
    traits: [
        .trait(name: "SwiftCrypto", description: "CryptoPrimitives on swift-crypto (every build of the router)"),
        .trait(
            name: "FuzzingStandIns",
            description: "CryptoPrimitives without cryptography, for the fuzz build alone (docs/RELIABILITY.md)"),
        .default(enabledTraits: ["SwiftCrypto"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        // The console and /metrics (docs/console.md): one HTTP server, its templates, its password hashes.
        .package(
            url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // pcsc-lite's headers live in /usr/include/PCSC; pkg-config would add `-pthread`, a flag SwiftPM refuses
        // with a warning, so the path is given here instead.
        .systemLibrary(name: "CPCSCLite", providers: [.apt(["libpcsclite-dev"])]),
        // libmosquitto's header is /usr/include/mosquitto.h; no pkg-config flags are needed.
        .systemLibrary(name: "CMosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // libsystemd's sd_notify for the service manager's readiness and watchdog (docs/operations.md).
        .systemLibrary(name: "CSystemd", providers: [.apt(["libsystemd-dev"])]),
        // zlib's crc32 for NTAG 424 DNA's ChangeKey.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc's ntp_adjtime (sys/timex.h): the clock's synchronisation in the status document (docs/fleet.md).
        .systemLibrary(name: "CTimex"),
        .target(name: "NDEF", swiftSettings: swiftSettings),
        .target(name: "NFCTag", dependencies: ["NDEF"], swiftSettings: swiftSettings),
        .target(
            name: "PCSC",
            dependencies: ["CPCSCLite", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings + [.unsafeFlags(["-Xcc", "-I/usr/include/PCSC"])]
        ),
        // The AASA component pattern engine: compiler, matcher and URI parsing, Foundation only.
        .target(name: "AASAPatterns", swiftSettings: swiftSettings),
        // What a reader shows for a tap's outcome and the commands that make it show it (docs/tags.md, "Reader
        // feedback"): standard library only, shared by the rules, the router and the emulator.
        .target(name: "ReaderFeedback", swiftSettings: swiftSettings),
        // SHA-256, AES-CMAC and AES-CBC below the rule language: swift-crypto's, or the fuzz build's stand-ins
        // (the traits above).
        .target(
            name: "CryptoPrimitives",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: .when(traits: ["SwiftCrypto"])),
            ],
            swiftSettings: swiftSettings
        ),
        // NTAG 424 DNA's Secure Unique NFC messages, AES mode: both sides, on CryptoPrimitives' AES-CBC and AES-CMAC.
        .target(name: "SUNMessage", dependencies: ["CZlib", "CryptoPrimitives"], swiftSettings: swiftSettings),
        // Provisioning an NTAG 424 DNA for SUN (`write --sun`): the tag's commands (NFCTag) with EV2 secure
        // messaging (SUNMessage), above both so that neither imports the other.
        .target(name: "NTAG424", dependencies: ["NDEF", "NFCTag", "SUNMessage"], swiftSettings: swiftSettings),
        // How a webhook reaches its receiver (TLS files, proxy) and how output shows its URL and headers: the rules
        // write them, the outbox stores them, the sender uses them.
        .target(
            name: "WebhookTarget",
            dependencies: ["CryptoPrimitives", "NDEF"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TagRules",
            dependencies: [
                "AASAPatterns", "CryptoPrimitives", "JSONOutput", "NDEF", "SUNMessage", "WebhookTarget",
                "ReaderFeedback",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // Enrollment's two pieces below the commands: the tags file's text editor (comments kept) and `learn`'s
        // claim on the readers it enrolls on.
        .target(
            name: "TagsFile",
            dependencies: ["FileStatus", "TagRules", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        // When and whether a webhook is tried again: status verdicts, Retry-After, backoff. Foundation only.
        .target(name: "WebhookRetry", swiftSettings: swiftSettings),
        // The state database (SQLite through GRDB): the outbox, the tap history, the association cache.
        .target(
            name: "StateStore",
            dependencies: [
                "FileStatus", "CZlib", "JSONOutput", "NDEF", "WebhookTarget",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Fetching the association files that aasa: rules use (AsyncHTTPClient), cached in the state database.
        .target(
            name: "LiveAssociations",
            dependencies: [
                "Deadline", "TagRules", "StateStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // An MQTT client connection over libmosquitto, its network loop on a dedicated thread.
        .target(name: "MQTTClient", dependencies: ["CMosquitto"], swiftSettings: swiftSettings),
        .target(
            name: "TagActions",
            dependencies: [
                "Deadline", "JSONOutput", "NDEF", "TagRules", "WebhookRetry", "WebhookTarget", "MQTTClient",
                "StateStore", "PeriodicWork",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // One JSON style for every JSON output (sorted keys, unescaped slashes, one line), Foundation only.
        .target(name: "JSONOutput", swiftSettings: swiftSettings),
        // The bundle file's layout and manifest (docs/fleet.md, "The bundle file"), read without cryptography: the
        // parsing of hostile bundle files, and its fuzz target, build without swift-crypto.
        .target(name: "BundleFormat", swiftSettings: swiftSettings),
        // Signed bundles of rules (docs/fleet.md): packing and verifying them on BundleFormat's layout (swift-crypto's
        // Ed25519 and SHA-256), their key files, the rules folder they are packed from and written to.
        .target(
            name: "FleetBundle",
            dependencies: ["BundleFormat", "FileStatus", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // Where bundles come from: HTTPS sources polled with If-None-Match (AsyncHTTPClient) and MQTT topics' retained
        // messages (MQTTClient). Apart from FleetBundle so that the bundle format (and its fuzz target) needs no
        // network stack.
        .target(
            name: "BundleSources",
            dependencies: [
                "BundleFormat", "FleetBundle", "Deadline", "MQTTClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // Work raced against a clock (withDeadline), standard library only.
        .target(name: "Deadline", swiftSettings: swiftSettings),
        // stat(2) as a Swift value, in a module of its own: the C struct is ambiguous where SwiftNIO's or Dispatch's C
        // modules are seen too (FileStatus.swift).
        .target(name: "FileStatus", swiftSettings: swiftSettings),
        // Work done every so often by a service, stopped at graceful shutdown, and the wakeup a service sleeps on:
        // ServiceLifecycle only, so that TagActions may use it too.
        .target(
            name: "PeriodicWork",
            dependencies: ["Deadline", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: swiftSettings
        ),
        // The router's one HTTP server (docs/console.md): /metrics and the web console on Hummingbird, its pages
        // rendered by swift-mustache; below the router, which feeds it taps and presence.
        .target(
            name: "Console",
            dependencies: [
                "Deadline", "JSONOutput", "NDEF", "StateStore", "TagRules", "TagsFile", "WebhookTarget",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Writes the git commit of the build into TagRouterCore, for `tagrouter --version`.
        .plugin(name: "BuildCommit", capability: .buildTool()),
        .target(
            name: "TagRouterCore",
            dependencies: [
                "BundleFormat", "FileStatus", "JSONOutput", "NDEF", "NFCTag", "PCSC", "PeriodicWork", "TagRules",
                "TagsFile", "TagActions", "StateStore", "LiveAssociations", "CSystemd", "CTimex", "ReaderFeedback",
                "FleetBundle", "BundleSources", "Console",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["BuildCommit"]
        ),
        // What each `tagrouter` command does, `doctor`'s checks and the typed option values; the command line only
        // parses into them.
        .target(
            name: "RouterCommands",
            dependencies: [
                "BundleFormat", "FileStatus", "CSystemd", "JSONOutput", "NDEF", "NFCTag", "NTAG424", "PCSC",
                "SUNMessage", "TagRules", "TagsFile", "TagActions", "TagRouterCore", "VirtualTag", "StateStore",
                "LiveAssociations", "ReaderFeedback", "FleetBundle", "MQTTClient", "Console",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "VirtualTag",
            dependencies: [
                "NDEF", "NFCTag", "ReaderFeedback", "SUNMessage", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "tagrouter",
            dependencies: [
                "RouterCommands", "TagRouterCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings,
            // Release builds on Linux: lld and no exported symbol table, 6 MiB less resident memory
            // (docs/development.md, "Footprint").
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "--no-export-dynamic"],
                    .when(platforms: [.linux], configuration: .release)
                )
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: ["NDEF", "NFCTag", .product(name: "Logging", package: "swift-log")],
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
            name: "tagrouterTests",
            dependencies: [
                "tagrouter", "RouterCommands", "TagRouterCore", "NDEF", "NFCTag", "SUNMessage", "StateStore",
                "TestSupport", "TagActions", "FleetBundle", "HTTPTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ReaderFeedbackTests", dependencies: ["ReaderFeedback"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NFCTagTests", dependencies: ["NFCTag", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PCSCTests", dependencies: ["PCSC", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "VirtualTagTests",
            dependencies: [
                "VirtualTag", "TestSupport", "NFCTag", "NTAG424", "SUNMessage", "NDEF",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TagRulesTests",
            dependencies: [
                "AASAPatterns", "CryptoPrimitives", "TagRules", "TagsFile", "SUNMessage", "TestSupport",
                "ReaderFeedback",
                .product(name: "Yams", package: "Yams"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TagsFileTests", dependencies: ["TagsFile", "TagRules", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TagRouterCoreTests",
            dependencies: [
                "TagRouterCore", "RouterCommands", "TagActions", "TagRules", "NFCTag", "NDEF", "PCSC", "PeriodicWork",
                "StateStore", "LiveAssociations", "TestSupport", "SUNMessage", "TagsFile", "AASAPatterns",
                "ReaderFeedback", "FleetBundle",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                "HTTPTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "PCSC", "ReaderFeedback", "TagRouterCore", "VirtualTag", "SUNMessage", "NDEF", "NFCTag", "TestSupport",
                "HTTPTestSupport",
                "MQTTClient",
                "MQTTTestSupport", "FleetBundle", "StateStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The browser tests' Playwright script, run from the source tree by ConsoleBrowserTests.
            exclude: ["Browser"],
            swiftSettings: swiftSettings
        ),
        // Test helpers: a program that records its argv/environment, and a child that fills the outbox then dies.
        .executableTarget(name: "argv-recorder", path: "Tests/Helpers/ArgvRecorder", swiftSettings: swiftSettings),
        .executableTarget(
            name: "outbox-child",
            dependencies: [
                "TagActions", "StateStore", "WebhookRetry", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Helpers/OutboxChild",
            swiftSettings: swiftSettings
        ),
        // A real HTTP/1.1 server on 127.0.0.1 for webhook tests, apart from TestSupport so that tests with no
        // network need not build NIO.
        .target(
            name: "HTTPTestSupport",
            dependencies: [
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/HTTPTestSupport",
            swiftSettings: swiftSettings
        ),
        // A real MQTT subscriber (libmosquitto) for tests against the private mosquitto of TestSupport.
        .target(
            name: "MQTTTestSupport",
            dependencies: ["MQTTClient", "TestSupport"],
            path: "Tests/MQTTTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MQTTClientTests",
            dependencies: [
                "MQTTClient", "MQTTTestSupport", "TestSupport", "HTTPTestSupport",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FleetBundleTests",
            dependencies: [
                "BundleFormat", "FleetBundle", "BundleSources", "HTTPTestSupport", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ConsoleTests",
            dependencies: [
                "Console", "RouterCommands", "StateStore", "TagRules",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StateStoreTests",
            dependencies: [
                "StateStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TagActionsTests",
            dependencies: [
                "TagActions", "WebhookRetry", "StateStore", "argv-recorder", "outbox-child", "HTTPTestSupport",
                "MQTTClient", "MQTTTestSupport", "TestSupport", "TagRules", "WebhookTarget",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
