import AASAPatterns
import Logging
import ReaderFeedback
import Synchronization
import TagRules
import TestSupport
import Testing

@testable import TagRouterCore

/// A reader opened directly, answering control codes from a table: the feature list, and an escape command
/// that answers each command from a rule.
private final class FakeControl: ReaderControl {
    let features: [UInt8]?
    let escape: @Sendable ([UInt8]) -> [UInt8]
    let sent = Mutex<[(code: UInt32, command: [UInt8])]>([])
    let closed = Mutex(false)

    init(features: [UInt8]?, escape: @escaping @Sendable ([UInt8]) -> [UInt8] = { _ in [0x90, 0x00] }) {
        self.features = features
        self.escape = escape
    }

    struct Refused: Error {}

    func control(_ code: UInt32, _ command: [UInt8]) async throws -> [UInt8] {
        sent.withLock { $0.append((code, command)) }
        if code == CCIDFeatures.controlCode(3400) {
            guard let features else { throw Refused() }
            return features
        }
        return escape(command)
    }

    func close() async {
        closed.withLock { $0 = true }
    }
}

private func settings(_ family: ReaderFamily?, quiet: Bool = true) throws -> ReaderSettings {
    ReaderSettings(
        name: try PatternCompiler(variables: [:], foldsCase: false, percentEncoded: false).compile("*"),
        family: family, quiet: quiet, location: SourceLocation(file: "r.yaml", line: 3, column: 5))
}

private func bytes(_ text: String) -> [UInt8] { text.split(separator: " ").map { UInt8($0, radix: 16)! } }

/// Quiet mode (docs/tags.md, "Reader feedback"): the escape command the driver advertises, the family's command
/// through it, read before write where the setting is in flash, one log line where there is no escape command.
struct QuietModeTests {
    static let libccid = bytes("12 04 42 33 00 12")
    static let libccidEscape = libccid + bytes("13 04 42 00 00 01")
    static let acsccid = bytes("12 04 42 33 00 12 13 04 42 00 0D AC")

    @Test("libccid without ifdDriverOptions 0x0001: no escape command, one log line with the Info.plist advice")
    func noEscape() async throws {
        let logs = LogRecorder.Lines()
        let signaller = ReaderSignaller(logger: logs.logger)
        let control = FakeControl(features: Self.libccid)
        let sent = await signaller.applyQuietMode(
            reader: "ACS ACR122U PICC Interface 00 00", settings: try settings(nil)
        ) {
            control
        }
        #expect(sent.isEmpty)
        #expect(control.sent.withLock { $0.map(\.code) } == [CCIDFeatures.controlCode(3400)])
        #expect(control.closed.withLock { $0 })
        let lines = logs.all.filter { $0.message.hasPrefix("reader.escape_unavailable") }
        #expect(lines.count == 1)
        #expect(lines.first?.message.contains("ifdDriverOptions to 0x0001") == true)
        #expect(lines.first?.message.contains("systemctl restart pcscd") == true)
    }

    @Test("vpcd refuses the feature request: one line, no advice about libccid")
    func vpcd() async throws {
        let logs = LogRecorder.Lines()
        let control = FakeControl(features: nil)
        let sent = await ReaderSignaller(logger: logs.logger).applyQuietMode(
            reader: "Virtual PCD 00 00", settings: try settings(nil)
        ) { control }
        #expect(sent.isEmpty)
        let lines = logs.all.filter { $0.message.hasPrefix("reader.escape_unavailable") }
        #expect(lines.count == 1)
        #expect(lines.first?.message.contains("ifdDriverOptions") == false)
    }

    @Test("an ACR122U through libccid's escape command, and through acsccid's")
    func acr122u() async throws {
        for (features, code) in [
            (Self.libccidEscape, CCIDFeatures.controlCode(1)), (Self.acsccid, CCIDFeatures.controlCode(3500)),
        ] {
            let control = FakeControl(features: features)
            let sent = await ReaderSignaller(logger: LogRecorder.Lines().logger).applyQuietMode(
                reader: "ACS ACR122U PICC Interface 00 00", settings: try settings(nil)
            ) { control }
            #expect(sent == [bytes("FF 00 52 00 00")])
            #expect(control.sent.withLock { $0.last?.code } == code)
        }
    }

    @Test("the ACR1252 family's setting is in flash: read first, written only when the beep bit is set")
    func acr1252() async throws {
        let noisy = FakeControl(features: Self.acsccid) { command in
            command == bytes("E0 00 00 21 00") ? bytes("E1 00 00 00 01 7F") : bytes("E1 00 00 00 01 77")
        }
        var sent = await ReaderSignaller(logger: LogRecorder.Lines().logger).applyQuietMode(
            reader: "ACS ACR1252 1S CL Reader PICC 00 00", settings: try settings(nil)
        ) { noisy }
        #expect(sent == [bytes("E0 00 00 21 00"), bytes("E0 00 00 21 01 77")])
        // The reader already holds the setting (after a pcscd restart, say): read, nothing written.
        let quiet = FakeControl(features: Self.acsccid) { _ in bytes("E1 00 00 00 01 77") }
        sent = await ReaderSignaller(logger: LogRecorder.Lines().logger).applyQuietMode(
            reader: "ACS ACR1252 1S CL Reader PICC 00 00", settings: try settings(nil)
        ) { quiet }
        #expect(sent == [bytes("E0 00 00 21 00")])
    }

    @Test("uTrust: read with 51 FF, written with 51 00 only when on")
    func utrust() async throws {
        let on = FakeControl(features: Self.libccidEscape) { command in command == [0x51, 0xFF] ? [0x01] : [0x00] }
        let sent = await ReaderSignaller(logger: LogRecorder.Lines().logger).applyQuietMode(
            reader: "Identiv uTrust 3700 F CL Reader 00 00", settings: try settings(nil)
        ) { on }
        #expect(sent == [[0x51, 0xFF], [0x51, 0x00]])
        let off = FakeControl(features: Self.libccidEscape) { _ in [0x00] }
        let none = await ReaderSignaller(logger: LogRecorder.Lines().logger).applyQuietMode(
            reader: "Identiv uTrust 3700 F CL Reader 00 00", settings: try settings(nil)
        ) { off }
        #expect(none == [[0x51, 0xFF]])
    }

    @Test("no quiet: nothing is opened")
    func notQuiet() async throws {
        let opened = Mutex(false)
        let sent = await ReaderSignaller(logger: LogRecorder.Lines().logger).applyQuietMode(
            reader: "ACS ACR122U PICC Interface 00 00", settings: try settings(.acr122u, quiet: false)
        ) {
            opened.withLock { $0 = true }
            return FakeControl(features: Self.acsccid)
        }
        #expect(sent.isEmpty)
        #expect(!opened.withLock { $0 })
    }
}
