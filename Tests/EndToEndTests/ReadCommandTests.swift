import Logging
import NDEF
import PCSC
import Testing
import VirtualTag

import struct TestSupport.HarnessError
import class TestSupport.PrivatePCSCD
import enum TestSupport.TagRouterBinary

/// `tagrouter read` and `tagrouter readers`, the built binary, against tags presented on the private pcscd.
@Suite(.needsRoot, .timeLimit(.minutes(45))) struct ReadCommandTests {
    let logger = Logger(label: "test")

    static func uriMessage(_ uri: String) throws -> [UInt8] {
        try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
    }

    @Test func readJSONOnAnNTAG213() async throws {
        try await withPCSCD { pcscd in
            let card = try Type2Card(model: .ntag213, message: try Self.uriMessage("https://example.com/door"))
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read", "--json"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(
                output.standardOutput
                    == #"{"atr":"3B8F8001804F0CA0000003060300030000000068","reader":"Virtual PCD 00 00","records":"#
                    + #"[{"payload":"046578616d706c652e636f6d2f646f6f72","tnf":"well-known","type":"U","#
                    + #""uri":"https://example.com/door"}],"tech":"type2","uid":"04A1B2C3D4E580"}"# + "\n")
            await presented.remove()
        }
    }

    @Test func readJSONOnAType4TagWithASmallMLe() async throws {
        try await withPCSCD { pcscd in
            var options = Type4Card.Options()
            options.maxResponseLength = 0x20
            let uri = "https://example.com/" + String(repeating: "long/", count: 20)
            let card = try Type4Card(message: try Self.uriMessage(uri), options: options)
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(
                ["read", "--json", "--reader", "*01"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains(#""reader":"Virtual PCD 00 01""#))
            #expect(output.standardOutput.contains(#""tech":"type4""#))
            #expect(output.standardOutput.contains(#""uid":"0452617A3C6980""#))
            #expect(output.standardOutput.contains(#""atr":"3B8180018080""#))
            #expect(output.standardOutput.contains(#""uri":"\#(uri)""#))
            await presented.remove()
        }
    }

    @Test func readHumanOnACardWithoutNDEF() async throws {
        try await withPCSCD { pcscd in
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
                .present(PlainISO14443Card())
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(
                output.standardOutput
                    == "reader  Virtual PCD 00 00\nuid     083A5C11\ntech    iso14443-4\natr     3B8180010101\nno NDEF\n"
            )
            await presented.remove()
        }
    }

    @Test func readWaitsForATagPresentedLater() async throws {
        try await withPCSCD { pcscd in
            async let run = TagRouterBinary.run(["read", "--wait", "--json"], environment: pcscd.environment)
            try await Task.sleep(for: .milliseconds(700))
            let card = try Type2Card(model: .ultralight, message: try Self.uriMessage("tel:+123"))
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger).present(card)
            let output = try await run
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains(#""uri":"tel:+123""#))
            #expect(output.standardOutput.contains(#""reader":"Virtual PCD 00 01""#))
            await presented.remove()
        }
    }

    @Test func readWaitsThroughAPcscdOutageAndKeepsStandardOutputForTheResult() async throws {
        try await withPCSCD { pcscd in
            await pcscd.stop()
            async let run = TagRouterBinary.run(["read", "--wait", "--json"], environment: pcscd.environment)
            try await Task.sleep(for: .milliseconds(500))
            try await pcscd.restart()
            let card = try Type2Card(model: .ntag213, message: try Self.uriMessage("https://example.com/back"))
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            let output = try await run
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.split(separator: "\n").count == 1)
            #expect(output.standardOutput.hasPrefix("{") && output.standardOutput.contains("https://example.com/back"))
            #expect(output.standardError.contains("pcsc.service.lost"))
            await presented.remove()
        }
    }

    @Test func readFailsWithOneSentenceWhenTheTagIsRippedAwayMidRead() async throws {
        try await withPCSCD { pcscd in
            let card = try Type2Card(model: .ntag213, message: try Self.uriMessage("https://example.com/door"))
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
                .present(card, answeringAtMost: 2)
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read", "--json"], environment: pcscd.environment)
            #expect(output.status == 1)
            #expect(output.standardOutput.isEmpty)
            let lines = output.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(output.standardError)")
            #expect(
                output.standardError
                    == "reader \"Virtual PCD 00 00\": tag removed during READ BINARY page 7 (SCardTransmit failed "
                    + "with SCARD_E_NOT_TRANSACTED (0x80100016): the exchange with the card failed)\n")
            await presented.waitUntilGone()
            #expect(presented.commandCount == 2)
        }
    }

    @Test func readFailsWhenNoTagOrNoMatchingReader() async throws {
        try await withPCSCD { pcscd in
            let none = try await TagRouterBinary.run(["read"], environment: pcscd.environment)
            #expect(none.status == 1)
            #expect(
                none.standardError
                    == "no tag on \"Virtual PCD 00 00\", \"Virtual PCD 00 01\"; present one or use --wait\n")
            let unmatched = try await TagRouterBinary.run(["read", "--reader", "ACR*"], environment: pcscd.environment)
            #expect(unmatched.status == 1)
            #expect(
                unmatched.standardError
                    == "no reader matches \"ACR*\" (readers: \"Virtual PCD 00 00\", \"Virtual PCD 00 01\")\n")
            await pcscd.stop()
            let stopped = try await TagRouterBinary.run(["read"], environment: pcscd.environment)
            #expect(stopped.status == 1)
            #expect(
                stopped.standardError
                    == "SCardEstablishContext failed with SCARD_E_NO_SERVICE (0x8010001D): pcscd is not running\n")
        }
    }

    @Test func readersListsEachReaderAndItsTag() async throws {
        try await withPCSCD { pcscd in
            let card = try Type2Card(model: .ntag215, message: [])
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let json = try await TagRouterBinary.run(["readers", "--json"], environment: pcscd.environment)
            #expect(json.status == 0, "\(json.standardError)")
            // vpcd answers the ACR122U's LED and buzzer command through the emulated reader and has no escape
            // command (docs/tags.md, "Reader feedback").
            let feedback = #""feedback":{"family":"vpcd","ledAndBuzzer":true,"quietMode":false}"#
            #expect(
                json.standardOutput
                    == #"[{"# + feedback
                    + #","reader":"Virtual PCD 00 00","tag":{"atr":"3B8F8001804F0CA0000003060300030000000068","#
                    + #""tech":"type2","uid":"04A1B2C3D4E580"}},{"# + feedback
                    + #","reader":"Virtual PCD 00 01","tag":null}]"#
                    + "\n")
            let human = try await TagRouterBinary.run(["readers"], environment: pcscd.environment)
            let support =
                "  feedback: vpcd: LED and buzzer with a card; no escape command (no quiet mode, nothing without a card)\n"
            #expect(
                human.standardOutput
                    == "Virtual PCD 00 00: type2 04A1B2C3D4E580 ATR 3B8F8001804F0CA0000003060300030000000068\n"
                    + support + "Virtual PCD 00 01: no tag\n" + support)
            await presented.remove()
        }
    }
}

/// Waits until the private pcscd reports a card on either slot.
func waitUntilPcscdSeesACard(_ pcscd: PrivatePCSCD) async throws {
    let context = try await PCSCContext.establish(logger: Logger(label: "test"))
    for _ in 0..<150 {
        let statuses = try await context.status(of: [pcscd.readerName(slot: 0), pcscd.readerName(slot: 1)])
        if statuses.contains(where: \.isCardPresent) {
            await context.release()
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    await context.release()
    throw HarnessError("no card appeared on the private pcscd within 3 s")
}
