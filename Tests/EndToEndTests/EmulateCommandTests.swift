import Logging
import NDEF
import PCSC
import Testing
import VirtualTag

import class TestSupport.PrivatePCSCD
import enum TestSupport.TagRouterBinary

/// `tagrouter emulate`, the built binary, presenting a tag that this test reads through the private pcscd.
@Suite(.needsRoot, .timeLimit(.minutes(45))) struct EmulateCommandTests {
    let logger = Logger(label: "test")

    /// `--show-feedback` (docs/cli.md, "tagrouter emulate"): the emulated reader answers the ACR122U's LED and
    /// buzzer command as the firmware does, and prints what a real reader would have shown.
    @Test func showFeedbackPrintsTheReadersSignals() async throws {
        try await withPCSCD { pcscd in
            let port = pcscd.vpcdPort(slot: 1)
            async let run = TagRouterBinary.run(
                [
                    "emulate", "--uri", "https://example.com/door", "--vpcd", "127.0.0.1:\(port)", "--hold", "3s",
                    "--show-feedback",
                ],
                environment: pcscd.environment)
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 1)
            try await waitForCard(in: reader, context: context, within: .seconds(5))
            let connection = try await context.connect(to: reader)
            // Red with a long beep, then three red blinks: the ACR122U answers 90 and its LED state (bit 0 red).
            #expect(
                try await connection.transmit([0xFF, 0x00, 0x40, 0x0D, 0x04, 0x05, 0x00, 0x01, 0x01]) == [0x90, 0x01])
            #expect(
                try await connection.transmit([0xFF, 0x00, 0x40, 0x5D, 0x04, 0x01, 0x01, 0x03, 0x00]) == [0x90, 0x01])
            #expect(
                try await connection.transmit([0xFF, 0x00, 0x48, 0x00, 0x00]) == Array("ACR122U215".utf8) + [
                    0x90, 0x00,
                ])
            await connection.disconnect()
            await context.release()
            let output = try await run
            #expect(output.status == 0, "\(output.standardError)")
            #expect(
                output.standardOutput
                    == "presenting ntag213 on vpcd 127.0.0.1:\(port)\n"
                    + "feedback: led=red beep=500ms×1 (FF 00 40 0D 04 05 00 01 01)\n"
                    + "feedback: led=red blink=red×3 (FF 00 40 5D 04 01 01 03 00)\n"
                    + "feedback: firmware-version (FF 00 48 00 00)\n"
                    + "removed after 0 commands\nreader LEDs: red\n")
        }
    }

    @Test func emulatedNTAG213IsReadableThroughPcscdAndCountsTheCommands() async throws {
        try await withPCSCD { pcscd in
            let port = pcscd.vpcdPort(slot: 1)
            async let run = TagRouterBinary.run(
                ["emulate", "--uri", "https://example.com/door", "--vpcd", "127.0.0.1:\(port)", "--hold", "3s"],
                environment: pcscd.environment)
            let message = try NDEFMessage(records: [URIRecord(uri: "https://example.com/door").record]).encoded()
            let expected = try Type2Card(model: .ntag213, message: message)
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 1)
            try await waitForCard(in: reader, context: context, within: .seconds(5))
            #expect(try await context.status(of: [reader]).first?.atr == expected.atr)
            let connection = try await context.connect(to: reader)
            #expect(try await connection.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) == expected.uid + [0x90, 0x00])
            for page in stride(from: 0, to: 16, by: 4) {
                let response = try await connection.transmit([0xFF, 0xB0, 0x00, UInt8(page), 0x10])
                #expect(response == Array(expected.memory[(page * 4)..<(page * 4 + 16)]) + [0x90, 0x00])
            }
            await connection.disconnect()
            await context.release()
            let output = try await run
            #expect(output.status == 0, "\(output.standardError)")
            #expect(
                output.standardOutput
                    == "presenting ntag213 on vpcd 127.0.0.1:\(port)\nremoved after 5 commands\n")
        }
    }

    @Test(arguments: [
        (["--uri", "https://a.b", "--ndef", "00"], "give exactly one of --uri, --ndef, --file"),
        (["--ndef", "0g"], "--ndef is not hex: 0g"),
        (["--ndef", "00", "--tag", "ntag999"], "The value 'ntag999' is invalid for '--tag <tag>'"),
        (["--ndef", "00", "--hold", "soon"], "The value 'soon' is invalid for '--hold <hold>'"),
        (["--ndef", "00", "--vpcd", "localhost"], "The value 'localhost' is invalid for '--vpcd <host:port>'"),
        (["--ndef", "00", "--repeat", "2"], "--repeat needs --hold"),
        (["--ndef", "00", "--hold", "1s", "--gap", "1s"], "--gap needs --repeat 2 or more"),
        (["--ndef", "00", "--repeat", "0"], "The value '0' is invalid for '--repeat <repeat>'"),
    ])
    func invalidOptionsAreRefusedBeforeConnecting(arguments: [String], message: String) async throws {
        let output = try await TagRouterBinary.run(["emulate"] + arguments, environment: [:])
        #expect(output.status == 64)
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }

    @Test func aMessageTooLargeForTheTagFailsNamingTheTag() async throws {
        let output = try await TagRouterBinary.run(
            ["emulate", "--ndef", String(repeating: "00", count: 50), "--tag", "ultralight", "--vpcd", "127.0.0.1:9"],
            environment: [:])
        #expect(output.status == 1)
        #expect(output.standardError == "ultralight: a 50-byte NDEF message does not fit; 45 bytes are free for it\n")
    }
}
