import ReaderFeedback
import Testing

/// The commands a signal becomes, the firmware's answer to them, families and the CCID feature list
/// (docs/tags.md, "Reader feedback").
struct ReaderFeedbackTests {
    static func hex(_ text: String) -> [UInt8] {
        text.split(separator: " ").map { UInt8($0, radix: 16)! }
    }

    @Test(
        "each signal's ACR122U commands, byte for byte, and what the firmware shows for them",
        arguments: [
            (FeedbackSignal(led: .green), ["FF 00 40 0E 04 00 00 00 00"], ["led=green"], LEDColor.green),
            (FeedbackSignal(led: .off), ["FF 00 40 0C 04 00 00 00 00"], ["led=off"], .off),
            (
                FeedbackSignal(led: .green, beep: .short), ["FF 00 40 0E 04 01 00 01 01"], ["led=green beep=100ms×1"],
                .green
            ),
            (FeedbackSignal(led: .red, beep: .long), ["FF 00 40 0D 04 05 00 01 01"], ["led=red beep=500ms×1"], .red),
            (FeedbackSignal(beep: .twice), ["FF 00 40 00 04 01 01 02 01"], ["beep=100ms×2"], .off),
            (FeedbackSignal(led: .orange), ["FF 00 40 0F 04 00 00 00 00"], ["led=orange"], .orange),
            (FeedbackSignal(led: .red, blink: 2), ["FF 00 40 5D 04 01 01 02 00"], ["led=red blink=red×2"], .red),
            (
                FeedbackSignal(led: .red, beep: .long, blink: 3),
                ["FF 00 40 0D 04 05 00 01 01", "FF 00 40 5D 04 01 01 03 00"],
                ["led=red beep=500ms×1", "led=red blink=red×3"], .red
            ),
            (
                FeedbackSignal(led: .orange, blink: 1), ["FF 00 40 FF 04 01 01 01 00"], ["led=orange blink=orange×1"],
                .orange
            ),
        ])
    func commands(signal: FeedbackSignal, bytes: [String], shown: [String], color: LEDColor) {
        let commands = ACR122UCommand.commands(for: signal)
        #expect(commands.map(\.bytes) == bytes.map(Self.hex))
        var lights = ReaderLights()
        #expect(commands.map { lights.apply($0) } == shown)
        #expect(lights.color == color)
        // The firmware parses back what was sent.
        #expect(commands.map { ACR122UCommand($0.bytes) } == commands)
    }

    @Test("an empty signal sends nothing; `none` everywhere is empty")
    func empty() {
        #expect(ACR122UCommand.commands(for: FeedbackSignal()).isEmpty)
        #expect(FeedbackPlan([.ignored: FeedbackSignal()])[.ignored] == nil)
        #expect(FeedbackSignal().summary == "none")
        #expect(FeedbackSignal(led: .red, beep: .long, blink: 3).summary == "led=red beep=long blink=3")
    }

    @Test(
        "pseudo-APDUs are told from a tag's commands",
        arguments: [
            ("FF 00 52 00 00", ACR122UCommand.detectionBeep(on: false)),
            ("FF 00 52 FF 00", .detectionBeep(on: true)),
            ("FF 00 48 00 00", .firmwareVersion),
            ("FF CA 00 00 00", nil),
            ("FF B0 00 04 10", nil),
            ("FF 00 00 00 04 D4 4A 01 00", nil),
            ("FF 00 40 0E 05 00 00 00 00", nil),
            ("FF 00 40 0E 04 00 00 00", nil),
            ("00 A4 04 00 07 D2 76 00 00 85 01 01 00", nil),
        ] as [(String, ACR122UCommand?)])
    func parsing(bytes: String, command: ACR122UCommand?) {
        #expect(ACR122UCommand(Self.hex(bytes)) == command)
    }

    @Test(
        "a reader's family from its name, and from its firmware's answer",
        arguments: [
            ("ACS ACR122U PICC Interface 00 00", ReaderFamily.acr122u),
            ("ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader PICC] 00 00", .acr1252),
            ("ACS ACR1255U-J1 PICC 00 00", .acr1252),
            ("Identiv uTrust 3700 F CL Reader [uTrust 3700 F CL Reader] 00 00", .utrust),
            ("HID Global OMNIKEY 5022 Smart Card Reader [OMNIKEY 5022] 00 00", .omnikey),
            ("Virtual PCD 00 01", .vpcd),
            ("SCM Microsystems Inc. SCL011 Contactless Reader 00 00", nil),
        ] as [(String, ReaderFamily?)])
    func families(name: String, family: ReaderFamily?) {
        #expect(ReaderFamily.from(readerName: name) == family)
    }

    @Test("the firmware version answers an ACR122U-class reader gives")
    func firmware() {
        #expect(ReaderFamily.from(firmwareAnswer: Array("ACR122U215".utf8) + [0x90, 0x00]) == .acr122u)
        #expect(ReaderFamily.from(firmwareAnswer: Array("ACR1252U".utf8) + [0x90, 0x00]) == .acr1252)
        #expect(ReaderFamily.from(firmwareAnswer: Array("ACR122U215".utf8) + [0x6A, 0x81]) == nil)
        #expect(ReaderFamily.from(firmwareAnswer: [0x90, 0x00]) == nil)
        #expect(ReaderFamily.from(firmwareAnswer: [0x63, 0x00]) == nil)
    }

    @Test("families without host-driven lights have no default signals; those with them do")
    func defaults() {
        #expect(ReaderFamily.omnikey.defaultPlan[.accepted] == nil)
        #expect(ReaderFamily.utrust.defaultPlan[.denied] == nil)
        #expect(ReaderFamily.acr122u.defaultPlan[.accepted] == FeedbackSignal(led: .green, beep: .short))
        #expect(ReaderFamily.acr122u.defaultPlan[.ignored] == nil)
    }

    /// libccid's answer to CM_IOCTL_GET_FEATURE_REQUEST for a contactless reader without a PIN pad and the
    /// default `ifdDriverOptions` (0x0000): FEATURE_GET_TLV_PROPERTIES alone (SCARD_CTL_CODE(0x330012)); with
    /// 0x0001, FEATURE_CCID_ESC_COMMAND too, as IOCTL_SMARTCARD_VENDOR_IFD_EXCHANGE (SCARD_CTL_CODE(1)). acsccid
    /// lists the escape command as SCARD_CTL_CODE(3500).
    static let libccidDefault = hex("12 04 42 33 00 12")
    static let libccidEscape = libccidDefault + hex("13 04 42 00 00 01")
    static let libccidPinPad = hex("06 04 42 33 00 06 07 04 42 33 00 07 0A 04 42 33 00 0A 12 04 42 33 00 12")
    static let acsccid = hex("12 04 42 33 00 12 13 04 42 00 0D AC")

    @Test("the feature TLVs of libccid with and without ifdDriverOptions 0x0001, and of acsccid")
    func features() throws {
        #expect(try CCIDFeatures(parsing: Self.libccidDefault).escapeControlCode == nil)
        #expect(try CCIDFeatures(parsing: Self.libccidDefault).controlCodes == [0x12: 0x4233_0012])
        #expect(try CCIDFeatures(parsing: Self.libccidPinPad).escapeControlCode == nil)
        #expect(try CCIDFeatures(parsing: Self.libccidPinPad).controlCodes.count == 4)
        #expect(try CCIDFeatures(parsing: Self.libccidEscape).escapeControlCode == CCIDFeatures.controlCode(1))
        #expect(try CCIDFeatures(parsing: Self.acsccid).escapeControlCode == CCIDFeatures.controlCode(3500))
        #expect(try CCIDFeatures(parsing: []).escapeControlCode == nil)
    }

    @Test(
        "a malformed feature list names the byte offset",
        arguments: [
            ("13", "feature list, byte 0: a feature's tag has no length byte"),
            ("13 02 00 01", "feature list, byte 1: feature 0x13 has length 2, expected 4"),
            ("12 04 42 33 00 12 13 04 42 33", "feature list, byte 6: feature 0x13 runs past the end (10 bytes)"),
        ])
    func malformed(bytes: String, message: String) {
        #expect(throws: FeedbackError.self) { try CCIDFeatures(parsing: Self.hex(bytes)) }
        do {
            _ = try CCIDFeatures(parsing: Self.hex(bytes))
        } catch {
            #expect(error.description == message)
        }
    }
}
