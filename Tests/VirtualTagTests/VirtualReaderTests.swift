import Logging
import Testing
import VirtualTag

import enum TestSupport.Hex

/// The vpcd side of the emulator against a hand-written fake vpcd (the real one is exercised end to end).
@Suite(.timeLimit(.minutes(45))) struct VirtualReaderTests {
    let logger = Logger(label: "test")

    @Test func answersControlsAndCommandsAsVpcdExpects() async throws {
        let vpcd = try FakeVPCD()
        let card = try Type2Card(model: .ntag213, message: [])
        let presented = try VirtualReader(port: vpcd.port, logger: logger).present(card)
        let connection = await vpcd.accept()
        connection.send([0x01])  // power on: no answer
        connection.send([0x04])  // ATR request
        #expect(await connection.receive() == card.atr)
        connection.send(Hex.bytes("FF CA 00 00 00"))
        #expect(await connection.receive() == card.uid + [0x90, 0x00])
        connection.send([0x02])  // reset: no answer
        connection.send(Hex.bytes("FF B0 00 03 04"))
        #expect(await connection.receive() == Hex.bytes("E1 10 12 00 90 00"))
        #expect(presented.commandCount == 2)
        #expect(presented.isPresent)
        await presented.remove()
        #expect(!presented.isPresent)
        #expect(await connection.receive() == nil)
        connection.close()
    }

    @Test func answersOnlyTheFirstNCommandsThenVanishes() async throws {
        let vpcd = try FakeVPCD()
        let presented = try VirtualReader(port: vpcd.port, logger: logger)
            .present(PlainISO14443Card(), answeringAtMost: 2)
        let connection = await vpcd.accept()
        for _ in 0..<2 {
            connection.send(Hex.bytes("FF CA 00 00 00"))
            #expect(await connection.receive() == Hex.bytes("08 3A 5C 11 90 00"))
        }
        connection.send([0x04])
        #expect(await connection.receive() == PlainISO14443Card().atr)
        connection.send(Hex.bytes("FF CA 00 00 00"))
        #expect(await connection.receive() == nil)
        await presented.waitUntilGone()
        #expect(presented.commandCount == 2)
        connection.close()
    }

    @Test func vpcdClosingTheConnectionEndsThePresentation() async throws {
        let vpcd = try FakeVPCD()
        let presented = try VirtualReader(port: vpcd.port, logger: logger).present(PlainISO14443Card())
        let connection = await vpcd.accept()
        connection.close()
        await presented.waitUntilGone()
        #expect(!presented.isPresent)
        #expect(presented.commandCount == 0)
    }

    @Test func holdEndsEarlyWhenVpcdGoesAway() async throws {
        let vpcd = try FakeVPCD()
        let presented = try VirtualReader(port: vpcd.port, logger: logger).present(PlainISO14443Card())
        let connection = await vpcd.accept()
        connection.close()
        // Without the early return this would take an hour.
        await presented.hold(for: .seconds(3_600))
        #expect(!presented.isPresent)
    }

    @Test func unreachableVpcdIsReportedWithTheAddress() throws {
        let absent = try FakeVPCD(listening: false)
        let port = absent.port
        #expect(throws: VirtualTagError.self) {
            try VirtualReader(port: port, logger: logger).present(PlainISO14443Card())
        }
        do {
            _ = try VirtualReader(port: port, logger: logger).present(PlainISO14443Card())
        } catch {
            #expect(
                "\(error)"
                    == "vpcd at 127.0.0.1:\(port): cannot connect (Connection refused); is pcscd running with the vpcd reader?"
            )
        }
        withExtendedLifetime(absent) {}
    }

    @Test(arguments: [
        ("00 A4 04 00", true),
        ("00 B0 00 00 0F", true),
        ("00 B0 00 00 00 01 00", true),
        ("00 A4 04 00 02 D2 76", true),
        ("00 A4 04 00 02 D2 76 00", true),
        ("00 D6 00 00 00 00 02 11 22", true),
        ("00 D6 00 00 00 00 02 11 22 01 00", true),
        ("00 A4 04 00 05 D2 76", false),
        ("00 B0 00 00 00 01", false),
        ("00 D6 00 00 00 00 02 11", false),
        ("00 B0 00", false),
    ])
    func commandLengthsThatDoNotAddUpGetWrongLength(command: String, wellFormed: Bool) throws {
        var card = try Type4Card(message: [])
        let response = card.respond(to: Hex.bytes(command))
        #expect((response != Hex.bytes("67 00")) == wellFormed, "\(command) → \(Hex.string(response))")
    }
}
