import Foundation
import NDEF
import TagActions
import Testing

@Suite("CommandRunner: real processes")
struct CommandRunnerTests {
    /// A hostile URI with a short name for the test report (one of them is 64 KiB).
    struct HostileURI: CustomTestStringConvertible, Sendable {
        var name: String
        var value: String
        var testDescription: String { name }
    }

    static let hostileURIs: [HostileURI] = [
        .init(name: "semicolon rm -rf", value: "https://x.example/; rm -rf /"),
        .init(name: "command substitution", value: "https://x.example/$(id)"),
        .init(name: "backticks", value: "https://x.example/`id`"),
        .init(name: "quotes", value: "https://x.example/'quoted' \"double\""),
        .init(name: "newlines", value: "https://x.example/line1\nline2\r\n"),
        .init(name: "percent-encoded invalid UTF-8", value: "https://x.example/%FF%FE%00%C3%28"),
        .init(name: "globs, pipes, redirection", value: "https://x.example/*?glob=[a-z]&x=$HOME|cat>/tmp/owned"),
        .init(name: "option-like", value: "-rf"),
        .init(name: "empty", value: ""),
        .init(name: "non-ASCII", value: "https://bücher.example/ü?q=日本"),
        .init(name: "64 KiB", value: "https://x.example/" + String(repeating: "A", count: 64 * 1024)),
    ]

    static func event(uri: String) -> EventDocument {
        EventDocument(
            id: "0193b0c2-0000-7000-8000-000000000001",
            time: "2026-11-22T12:00:00.123Z",
            rule: "door",
            reader: "ACS ACR122U PICC Interface 00 00",
            tag: .init(uid: "04A1B2C3D4E580", tech: "type2"),
            uri: uri,
            records: [RecordSummary(tnf: "well-known", type: "U", payload: "00")]
        )
    }

    @Test("a hostile URI arrives byte-exact as one argument and in TAG_URI", arguments: hostileURIs)
    func hostileURIArrivesAsOneArgument(hostile: HostileURI) async throws {
        let uri = hostile.value
        try await TestEnvironment.withTemporaryDirectory { directory in
            let output = directory + "/record.json"
            let runner = CommandRunner(logger: TestEnvironment.logger)
            let result = try await runner.run(
                CommandAction(
                    argv: [TestEnvironment.argvRecorder, "before", uri, "x{\(uri)}y"],
                    environment: ["ARGV_RECORDER_OUT": output]
                ),
                event: Self.event(uri: uri)
            )
            #expect(result.termination == .exited(0))
            let recording = try Recording(path: output)
            #expect(recording.argv.count == 4)
            #expect(recording.argv[1] == Array("before".utf8))
            #expect(recording.argv[2] == Array(uri.utf8))
            #expect(recording.argv[3] == Array("x{\(uri)}y".utf8))
            #expect(recording.environment["TAG_URI"] == Array(uri.utf8))
            #expect(recording.variable("TAG_UID") == "04A1B2C3D4E580")
            #expect(recording.variable("TAG_READER") == "ACS ACR122U PICC Interface 00 00")
            #expect(recording.variable("TAG_TECH") == "type2")
            #expect(recording.variable("TAG_RULE") == "door")
            #expect(recording.variable("TAG_EVENT_ID") == "0193b0c2-0000-7000-8000-000000000001")
            #expect(recording.variable("TAG_TEXT") == "")
            let json = try #require(recording.environment["TAG_EVENT_JSON"])
            let object = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]
            #expect(object?["uri"] as? String == uri)
        }
    }

    @Test("env overrides and cwd are applied; the rule's env wins over TAG_*")
    func environmentAndWorkingDirectory() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let output = directory + "/record.json"
            let runner = CommandRunner(logger: TestEnvironment.logger)
            try await runner.run(
                CommandAction(
                    argv: [TestEnvironment.argvRecorder],
                    environment: ["ARGV_RECORDER_OUT": output, "DOOR_ZONE": "front", "TAG_RULE": "overridden"],
                    workingDirectory: directory
                ),
                event: Self.event(uri: "https://x.example/")
            )
            let recording = try Recording(path: output)
            #expect(recording.variable("DOOR_ZONE") == "front")
            #expect(recording.variable("TAG_RULE") == "overridden")
            #expect(
                URL(fileURLWithPath: recording.workingDirectory).resolvingSymlinksInPath().path
                    == URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
            )
        }
    }

    @Test("a command inherits PATH, HOME, LANG, LC_* and TZ only; the opener also the desktop session's variables")
    func minimalEnvironment() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let router = [
                "PATH": "/usr/bin:/bin", "HOME": "/var/lib/tagrouter", "LANG": "C.UTF-8", "LC_TIME": "de_DE.UTF-8",
                "TZ": "Europe/Berlin", "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0",
                "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus", "HA_TOKEN": "secret-token",
                "TAGROUTER_WEBHOOK_SECRET": "hmac-key", "AWS_SECRET_ACCESS_KEY": "x",
            ]
            let runner = CommandRunner(environment: router, logger: TestEnvironment.logger)
            var recordings: [Recording] = []
            for usesDesktopSession in [false, true] {
                let output = directory + "/record-\(usesDesktopSession).json"
                var command = CommandAction(
                    argv: [TestEnvironment.argvRecorder], environment: ["ARGV_RECORDER_OUT": output])
                command.usesDesktopSession = usesDesktopSession
                try await runner.run(command, event: Self.event(uri: "https://x.example/"))
                recordings.append(try Recording(path: output))
            }
            let inherited = ["PATH", "HOME", "LANG", "LC_TIME", "TZ"]
            let tag = ["TAG_URI", "TAG_UID", "TAG_READER", "TAG_TECH", "TAG_RULE", "TAG_EVENT_ID", "TAG_TEXT"]
            let expected = Set(inherited + tag + ["TAG_EVENT_JSON", "ARGV_RECORDER_OUT"])
            #expect(Set(recordings[0].environment.keys) == expected)
            #expect(
                Set(recordings[1].environment.keys)
                    == expected.union(["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"]))
            for name in inherited { #expect(recordings[0].variable(name) == router[name]) }
            #expect(recordings[1].variable("DISPLAY") == ":0")
        }
    }

    @Test("TAG_TEXT is the first Text record; a NUL in it empties TAG_TEXT but TAG_EVENT_JSON keeps it escaped")
    func textVariable() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let runner = CommandRunner(logger: TestEnvironment.logger)
            for (text, expected) in [("hello $(id)\n", "hello $(id)\n"), ("a\u{0}b", "")] {
                var event = Self.event(uri: "https://x.example/")
                var record = RecordSummary(tnf: "well-known", type: "T", payload: "00")
                record.text = text
                var second = record
                second.text = "second"
                event.records = [RecordSummary(tnf: "well-known", type: "U", payload: "00"), record, second]
                let output = directory + "/text.json"
                try await runner.run(
                    CommandAction(argv: [TestEnvironment.argvRecorder], environment: ["ARGV_RECORDER_OUT": output]),
                    event: event
                )
                let recording = try Recording(path: output)
                #expect(recording.variable("TAG_TEXT") == expected)
                let json = try #require(recording.environment["TAG_EVENT_JSON"])
                let object = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]
                let records = object?["records"] as? [[String: Any]]
                #expect(records?[1]["text"] as? String == text)
            }
        }
    }

    @Test("a program name is looked up on PATH and argv[0] is kept as written")
    func programLookedUpOnPath() async throws {
        let runner = CommandRunner(logger: TestEnvironment.logger)
        let result = try await runner.run(
            CommandAction(argv: ["sh", "-c", "printf '%s|' \"$0\" \"$1\"", "zero", "one"]))
        #expect(String(decoding: result.standardOutput, as: UTF8.self) == "zero|one|")
    }

    @Test(
        "exit status is a result, not an error",
        arguments: [("exit 0", Int32(0)), ("exit 3", 3), ("exit 255", 255)]
    )
    func exitStatus(script: String, status: Int32) async throws {
        let runner = CommandRunner(logger: TestEnvironment.logger)
        let result = try await runner.run(CommandAction(argv: ["/bin/sh", "-c", script]))
        #expect(result.termination == .exited(status))
        #expect(result.isSuccess == (status == 0))
    }

    @Test("stdout and stderr are captured up to the bound; the rest is drained")
    func outputIsBounded() async throws {
        let runner = CommandRunner(outputLimit: 1000, logger: TestEnvironment.logger)
        let result = try await runner.run(
            CommandAction(argv: ["/bin/sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' a; echo oops >&2"])
        )
        #expect(result.termination == .exited(0))
        #expect(result.standardOutput == [UInt8](repeating: UInt8(ascii: "a"), count: 1000))
        #expect(result.standardError == Array("oops\n".utf8))
        #expect(result.isOutputTruncated)
    }

    @Test("a missing program and a NUL byte are clear errors")
    func launchErrors() async throws {
        let runner = CommandRunner(logger: TestEnvironment.logger)
        await #expect(throws: ActionError.self) {
            try await runner.run(CommandAction(argv: ["/nonexistent/tagrouter-test-program"]))
        }
        do {
            try await runner.run(CommandAction(argv: ["/bin/echo", "a\u{0}b"]))
            Issue.record("a NUL byte was accepted")
        } catch let error as ActionError {
            #expect(error.code == .invalidCommand)
            #expect(error.description == "command '/bin/echo': argument 1 contains a NUL byte")
        }
        do {
            try await runner.run(CommandAction(argv: []))
            Issue.record("an empty argv was accepted")
        } catch let error as ActionError {
            #expect(error.description == "command has an empty argv or an empty program name")
        }
    }
}
