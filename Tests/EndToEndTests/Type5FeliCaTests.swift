import Foundation
import Logging
import NDEF
import NFCTag
import PCSC
import Testing
import VirtualTag

import struct TestSupport.HarnessError
import class TestSupport.PrivatePCSCD
import enum TestSupport.TagRouterBinary

/// Type 5 (ISO 15693) and Type 3 (FeliCa) tags through the real pcscd and vpcd: `tagrouter read`, writes over a
/// PC/SC connection, and the router with tags that vanish at every command of a read.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct Type5FeliCaTests {
    let logger = Logger(label: "test")

    static func uriMessage(_ uri: String) throws -> [UInt8] {
        try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
    }

    @Test func readJSONOnAType5Tag() async throws {
        try await withPCSCD { pcscd in
            let card = try Type5Card(message: try Self.uriMessage("https://example.com/door"))
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read", "--json"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(
                output.standardOutput
                    == #"{"atr":"3B8F8001804F0CA0000003060B00140000000077","reader":"Virtual PCD 00 00","records":"#
                    + #"[{"payload":"046578616d706c652e636f6d2f646f6f72","tnf":"well-known","type":"U","#
                    + #""uri":"https://example.com/door"}],"tech":"type5","uid":"E00401508A3C2D1F"}"# + "\n")
            await presented.remove()
        }
    }

    @Test(arguments: FeliCaCard.Reader.allCases)
    func readJSONOnAFeliCaLiteS(reader: FeliCaCard.Reader) async throws {
        try await withPCSCD { pcscd in
            var options = FeliCaCard.Options()
            options.reader = reader
            let uri = "https://example.com/" + String(repeating: "felica/", count: 10)
            let card = try FeliCaCard(message: try Self.uriMessage(uri), options: options)
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read", "--json"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains(#""tech":"felica""#), "\(output.standardOutput)")
            #expect(output.standardOutput.contains(#""uid":"0127005D1A2B3C4D""#))
            #expect(output.standardOutput.contains(#""uri":"\#(uri)""#))
            await presented.remove()
        }
    }

    @Test func readHumanOnABlankType5TagShowsItsUIDAndNoNDEF() async throws {
        try await withPCSCD { pcscd in
            var options = Type5Card.Options()
            options.isBlank = true
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
                .present(try Type5Card(message: [], options: options))
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(
                output.standardOutput
                    == "reader  Virtual PCD 00 00\nuid     E00401508A3C2D1F\ntech    type5\natr     3B8F8001804F0CA0000003060B00140000000077\nno NDEF\n"
            )
            await presented.remove()
        }
    }

    @Test func aMalformedType5TLVNamesTheReaderAndByte() async throws {
        try await withPCSCD { pcscd in
            let memory: [UInt8] = [0xE1, 0x40, 0x0E, 0x01, 0x03, 0xFF, 0x04, 0x00] + [UInt8](repeating: 0, count: 104)
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
                .present(Type5Card(memory: memory))
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read"], environment: pcscd.environment)
            #expect(output.status != 0)
            #expect(output.standardError.contains("Virtual PCD 00 00"), "\(output.standardError)")
            #expect(
                output.standardError.contains(
                    "Type 5 TLV at byte 4: NDEF length 1024 runs past the data area (108 bytes)"),
                "\(output.standardError)")
            await presented.remove()
        }
    }

    @Test func aFeliCaAttributeBlockWithAWrongChecksumNamesTheReaderAndByte() async throws {
        try await withPCSCD { pcscd in
            let attribute =
                [0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, 0x08, 0x00, 0x2C] as [UInt8]
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger)
                .present(FeliCaCard(memory: attribute + [0xD0, 0x00, 0x00]))
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read"], environment: pcscd.environment)
            #expect(output.status != 0)
            #expect(output.standardError.contains("Virtual PCD 00 01"), "\(output.standardError)")
            #expect(
                output.standardError.contains(
                    "Type 3 attribute block at byte 14: checksum 00 2C does not match the sum of bytes 0-13 (00 2B)"),
                "\(output.standardError)")
            await presented.remove()
        }
    }

    /// Writes through pcscd with the writer, then reads with `tagrouter read`.
    func writeThroughPCSCD(
        _ card: some VirtualCard, slot: Int, write: @escaping @Sendable (CardConnection) async throws -> Void,
        expectURI uri: String
    ) async throws {
        try await withPCSCD { pcscd in
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: slot), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let context = try await PCSCContext.establish(logger: logger)
            try await context.withThread {
                let connection = try await context.connect(to: pcscd.readerName(slot: slot))
                do {
                    try await write(connection)
                } catch {
                    await connection.disconnect()
                    throw error
                }
                await connection.disconnect()
            }
            await context.release()
            let output = try await TagRouterBinary.run(["read", "--json"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains(#""uri":"\#(uri)""#), "\(output.standardOutput)")
            await presented.remove()
        }
    }

    @Test func type5WriteThroughPCSCD() async throws {
        let uri = "https://example.com/written/" + String(repeating: "5", count: 100)
        let message = try Self.uriMessage(uri)
        try await writeThroughPCSCD(
            try Type5Card(message: try Self.uriMessage("https://example.com/old")), slot: 0,
            write: { try await Type5Writer().write(message, to: $0) }, expectURI: uri)
    }

    @Test func feliCaWriteThroughPCSCD() async throws {
        let uri = "https://example.com/written/" + String(repeating: "3", count: 100)
        let message = try Self.uriMessage(uri)
        let card = try FeliCaCard(message: try Self.uriMessage("https://example.com/old"))
        let atr = card.atr
        try await writeThroughPCSCD(
            card, slot: 1, write: { try await Type3Writer().write(message, to: $0, atr: atr) }, expectURI: uri)
    }

    @Test(arguments: [("type5", "E00401508A3C2D1F"), ("felica", "0127005D1A2B3C4D"), ("type1", "3A815C0D")])
    func emulateTagKindIsReadByTheReadCommand(kind: String, uid: String) async throws {
        try await withPCSCD { pcscd in
            let port = pcscd.vpcdPort(slot: 0)
            let uri = "https://example.com/emulated/\(kind)"
            async let emulate = TagRouterBinary.run(
                ["emulate", "--tag", kind, "--uri", uri, "--vpcd", "127.0.0.1:\(port)", "--hold", "3s"],
                environment: pcscd.environment)
            let output = try await TagRouterBinary.run(["read", "--wait", "--json"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains(#""tech":"\#(kind)""#), "\(output.standardOutput)")
            #expect(output.standardOutput.contains(#""uid":"\#(uid)""#), "\(output.standardOutput)")
            #expect(output.standardOutput.contains(#""uri":"\#(uri)""#), "\(output.standardOutput)")
            let emulated = try await emulate
            #expect(emulated.status == 0, "\(emulated.standardError)")
            #expect(emulated.standardOutput.hasPrefix("presenting \(kind) on vpcd 127.0.0.1:\(port)\n"))
        }
    }

    @Test func routerDispatchesAType5AndAFeliCaTagWithTheirTech() async throws {
        let rules =
            "version: 1\nrules:\n"
            + recordingRule(name: "five", match: "{ tech: [type5], domains: [example.com] }", marker: "five")
            + recordingRule(name: "three", match: "{ tech: [felica], domains: [example.com] }", marker: "three")
        try await RouterHarness.with(rules: rules) { harness in
            let five = try harness.present(
                try Type5Card(message: try Self.uriMessage("https://example.com/5")), slot: 0)
            try await harness.waitForDispatch(containing: "five|Virtual PCD 00 00|https://example.com/5")
            let three = try harness.present(
                try FeliCaCard(message: try Self.uriMessage("https://example.com/3")), slot: 1)
            try await harness.waitForDispatch(containing: "three|Virtual PCD 00 01|https://example.com/3")
            await five.remove()
            await three.remove()
            #expect(harness.dispatched.count == 2)
        }
    }
}
