/// The kinds of reader whose feedback and quiet-mode commands TagRouter knows (docs/tags.md, "Reader feedback").
public enum ReaderFamily: String, Sendable, CaseIterable, Hashable {
    /// ACS ACR122U: pseudo-APDUs `FF 00 40` (LED and buzzer), `FF 00 52` (beep on card detection),
    /// `FF 00 48` (firmware version).
    case acr122u
    /// ACS ACR1252U, ACR1255U, ACR1281U, ACR1283L, ACM1252U: the ACR122U-compatible LED and buzzer command with a
    /// card present, escape commands `E0 00 00 21` (what the reader signals by itself), `28` (buzzer), `29` (LEDs).
    case acr1252
    /// Identiv uTrust 3700 F, 3720 F, 4701 F, 5501 F: escape `51` (buzzer on card detection) only.
    case utrust
    /// HID OMNIKEY: no host-driven LED or buzzer command TagRouter knows.
    case omnikey
    /// vsmartcard's vpcd with TagRouter's emulated reader (`tagrouter emulate`): the ACR122U pseudo-APDUs with a
    /// card present, no escape command.
    case vpcd

    /// The family a reader's name says, if it says one.
    /// - Parameter readerName: the name pcscd gives the reader (`ACS ACR122U PICC Interface 00 00`).
    /// - Returns: the family, or `nil` when the name names none.
    public static func from(readerName: String) -> ReaderFamily? {
        let name = readerName.uppercased()
        if name.contains("ACR122") { return .acr122u }
        if ["ACR1252", "ACR1255", "ACR1281", "ACR1283", "ACM1252"].contains(where: name.contains) { return .acr1252 }
        if name.contains("UTRUST") || name.contains("IDENTIV") { return .utrust }
        if name.contains("OMNIKEY") { return .omnikey }
        if name.hasPrefix("VIRTUAL PCD") { return .vpcd }
        return nil
    }

    /// The family an answer to `FF 00 48 00 00` (the firmware version) shows: an ACR122U-class firmware answers
    /// ASCII such as `ACR122U215`, then `90 00`.
    /// - Parameter answer: the response APDU, status word included.
    /// - Returns: the family, or `nil` when the answer is not an ACR122U-class version.
    public static func from(firmwareAnswer answer: [UInt8]) -> ReaderFamily? {
        guard answer.count > 2, answer.suffix(2) == [0x90, 0x00] else { return nil }
        let text = String(decoding: answer.dropLast(2), as: UTF8.self).uppercased()
        if text.hasPrefix("ACR122") { return .acr122u }
        if text.hasPrefix("ACR125") || text.hasPrefix("ACM125") { return .acr1252 }
        return nil
    }

    /// Whether the family takes the ACR122U LED and buzzer pseudo-APDU on a card's handle (`SCardTransmit`).
    public var takesPseudoAPDUs: Bool {
        switch self {
        case .acr122u, .acr1252, .vpcd: true
        case .utrust, .omnikey: false
        }
    }

    /// Whether the family has a quiet mode (no firmware beep when a card arrives).
    public var hasQuietMode: Bool {
        switch self {
        case .acr122u, .acr1252, .utrust: true
        case .omnikey, .vpcd: false
        }
    }

    /// The signals a reader of this family shows when its `readers:` entry gives none (docs/tags.md,
    /// "Reader feedback"): green and a short beep for accepted, red and a long beep for denied, red blinking twice
    /// for a failed read, orange while asking, nothing for an ignored tag; nothing for a family that cannot show it.
    public var defaultPlan: FeedbackPlan {
        guard takesPseudoAPDUs else { return FeedbackPlan() }
        return FeedbackPlan([
            .accepted: FeedbackSignal(led: .green, beep: .short),
            .denied: FeedbackSignal(led: .red, beep: .long),
            .failed: FeedbackSignal(led: .red, blink: 2),
            .asking: FeedbackSignal(led: .orange),
        ])
    }
}
