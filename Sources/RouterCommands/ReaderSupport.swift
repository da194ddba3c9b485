import PCSC
import ReaderFeedback

/// What a reader can show and how it is reached, for `tagrouter readers` and `doctor` (docs/tags.md, "Reader
/// feedback"): its family, LED and buzzer with a card, quiet mode, and the escape command its driver advertises.
struct ReaderSupport: Encodable, Sendable, Hashable {
    /// The family its name says (`acr122u`, …), if any.
    var family: String?
    /// Whether it takes the ACR122U LED and buzzer command with a card present.
    var ledAndBuzzer: Bool
    /// Whether TagRouter knows a quiet-mode command for it.
    var quietMode: Bool
    /// The escape command's control code (`FEATURE_CCID_ESC_COMMAND`), `0x42000001` say; nil when the driver
    /// advertises none.
    var escapeCommand: String?

    /// The libccid setting that makes the escape command available, and the restart it needs.
    static let infoPlistAdvice =
        "set ifdDriverOptions to 0x0001 in /usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Info.plist "
        + "(<key>ifdDriverOptions</key> <string>0x0001</string>), then sudo systemctl restart pcscd"

    /// Asks the reader's driver for its features (`CM_IOCTL_GET_FEATURE_REQUEST` over a direct connection).
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - context: an established context.
    /// - Returns: what the reader supports; no escape command when the driver refuses the request.
    static func probe(reader: String, context: PCSCContext) async -> ReaderSupport {
        let family = ReaderFamily.from(readerName: reader)
        var escape: UInt32?
        if let connection = try? await context.connectDirect(to: reader) {
            if let answer = try? await connection.control(DirectConnection.featureRequest) {
                escape = (try? CCIDFeatures(parsing: answer))?.escapeControlCode
            }
            await connection.disconnect()
        }
        return ReaderSupport(family: family, escape: escape)
    }

    /// What a reader of `family` supports with the escape command `escape`.
    init(family: ReaderFamily?, escape: UInt32?) {
        self.family = family?.rawValue
        self.ledAndBuzzer = family?.takesPseudoAPDUs ?? false
        self.quietMode = (family?.hasQuietMode ?? false) && escape != nil
        self.escapeCommand = escape.map { "0x" + String($0, radix: 16, uppercase: true) }
    }

    /// Whether the escape command is missing where it matters: a known family with quiet mode behind it.
    var lacksEscape: Bool {
        escapeCommand == nil && family.flatMap(ReaderFamily.init(rawValue:))?.hasQuietMode == true
    }

    /// `acr122u: LED and buzzer with a card; escape command 0x42000001 (quiet mode)`.
    var summary: String {
        let name = family ?? "unknown family"
        let lights = ledAndBuzzer ? "LED and buzzer with a card" : "no LED or buzzer command"
        let escape =
            escapeCommand.map { "escape command \($0)" + (quietMode ? " (quiet mode)" : "") }
            ?? "no escape command (no quiet mode, nothing without a card)"
        return "\(name): \(lights); \(escape)"
    }
}
