/// The ACR122U's pseudo-APDUs (class `FF`, answered by the reader's firmware, not the card): the LED and buzzer
/// command `FF 00 40 P2 04 T1 T2 N L`, the beep on card detection `FF 00 52 P1 00` and the firmware version
/// `FF 00 48 00 00` (docs/tags.md, "Reader feedback").
public enum ACR122UCommand: Sendable, Hashable {
    /// LED and buzzer: `P2` (the LED bits), `T1` and `T2` (durations in 100 ms), `N` (repetitions), `L` (when
    /// the buzzer sounds: 0 never, 1 during T1, 2 during T2, 3 both).
    case ledAndBuzzer(p2: UInt8, t1: UInt8, t2: UInt8, repetitions: UInt8, link: UInt8)
    /// Whether the reader beeps by itself when a card arrives.
    case detectionBeep(on: Bool)
    /// The firmware version.
    case firmwareVersion

    /// The command's bytes.
    public var bytes: [UInt8] {
        switch self {
        case .ledAndBuzzer(let p2, let t1, let t2, let repetitions, let link):
            [0xFF, 0x00, 0x40, p2, 0x04, t1, t2, repetitions, link]
        case .detectionBeep(let on): [0xFF, 0x00, 0x52, on ? 0xFF : 0x00, 0x00]
        case .firmwareVersion: [0xFF, 0x00, 0x48, 0x00, 0x00]
        }
    }

    /// The pseudo-APDU these bytes are, if they are one (a tag's commands, `FF CA`, `FF B0`, `FF 00 00 00` direct
    /// transmit, are not).
    /// - Parameter bytes: a command APDU.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 5, bytes[0] == 0xFF, bytes[1] == 0x00 else { return nil }
        switch bytes[2] {
        case 0x40 where bytes.count == 9 && bytes[4] == 0x04:
            self = .ledAndBuzzer(p2: bytes[3], t1: bytes[5], t2: bytes[6], repetitions: bytes[7], link: bytes[8])
        case 0x52 where bytes.count == 5 && (bytes[3] == 0x00 || bytes[3] == 0xFF) && bytes[4] == 0x00:
            self = .detectionBeep(on: bytes[3] == 0xFF)
        case 0x48 where bytes.count == 5 && bytes[3] == 0x00 && bytes[4] == 0x00:
            self = .firmwareVersion
        default:
            return nil
        }
    }

    // P2's bits.
    static let finalRed: UInt8 = 0x01
    static let finalGreen: UInt8 = 0x02
    static let redMask: UInt8 = 0x04
    static let greenMask: UInt8 = 0x08
    static let blinkingRed: UInt8 = 0x10
    static let blinkingGreen: UInt8 = 0x20
    static let redBlinkMask: UInt8 = 0x40
    static let greenBlinkMask: UInt8 = 0x80

    /// The commands that show a signal, in order: the colour with the beep, then the blinks (which end in the
    /// colour); one command when the signal has no beep or no blink.
    /// - Parameter signal: the signal.
    /// - Returns: the commands; none for an empty signal.
    public static func commands(for signal: FeedbackSignal) -> [ACR122UCommand] {
        guard !signal.isEmpty else { return [] }
        var final: UInt8 = 0
        if let led = signal.led {
            final = redMask | greenMask | (led.red ? finalRed : 0) | (led.green ? finalGreen : 0)
        }
        var commands: [ACR122UCommand] = []
        if signal.beep != .none || signal.blink == 0 {
            let (t1, t2, repetitions, link): (UInt8, UInt8, UInt8, UInt8) =
                switch signal.beep {
                case .short: (1, 0, 1, 1)
                case .long: (5, 0, 1, 1)
                case .twice: (1, 1, 2, 1)
                case .none: (0, 0, 0, 0)
                }
            commands.append(.ledAndBuzzer(p2: final, t1: t1, t2: t2, repetitions: repetitions, link: link))
        }
        if signal.blink > 0, let led = signal.led, led != .off {
            let blinking =
                (led.red ? blinkingRed | redBlinkMask : 0) | (led.green ? blinkingGreen | greenBlinkMask : 0)
            commands.append(
                .ledAndBuzzer(
                    p2: final | blinking, t1: 1, t2: 1,
                    repetitions: UInt8(min(signal.blink, FeedbackSignal.maximumBlinks)),
                    link: 0))
        }
        return commands
    }
}

/// What an ACR122U-class reader shows: its LEDs, and what each LED and buzzer command made it do. The emulated
/// reader keeps one (`tagrouter emulate --show-feedback`).
public struct ReaderLights: Sendable, Hashable {
    /// Whether the red LED is on.
    public var red = false
    /// Whether the green LED is on.
    public var green = false
    /// Whether the reader beeps by itself when a card arrives (the firmware's default: yes).
    public var beepsOnDetection = true

    /// Creates a reader with both LEDs off that beeps on detection.
    public init() {}

    /// The colour the LEDs show.
    public var color: LEDColor {
        switch (red, green) {
        case (true, true): .orange
        case (true, false): .red
        case (false, true): .green
        case (false, false): .off
        }
    }

    /// The status byte an ACR122U answers after `90`: bit 0 the red LED, bit 1 the green one.
    public var stateByte: UInt8 { (red ? 0x01 : 0) | (green ? 0x02 : 0) }

    /// Carries out one command as the firmware does and describes what it showed.
    /// - Parameter command: the command.
    /// - Returns: what the reader showed, `led=green beep=100ms×1`, `blink=red×3`, `quiet`.
    public mutating func apply(_ command: ACR122UCommand) -> String {
        switch command {
        case .detectionBeep(let on):
            beepsOnDetection = on
            return on ? "detection-beep=on" : "detection-beep=off"
        case .firmwareVersion:
            return "firmware-version"
        case .ledAndBuzzer(let p2, let t1, let t2, let repetitions, let link):
            var parts: [String] = []
            let blinksRed = p2 & ACR122UCommand.redBlinkMask != 0
            let blinksGreen = p2 & ACR122UCommand.greenBlinkMask != 0
            if (blinksRed || blinksGreen) && repetitions > 0 {
                let colour: LEDColor = blinksRed && blinksGreen ? .orange : blinksRed ? .red : .green
                parts.append("blink=\(colour.rawValue)×\(repetitions)")
            }
            if p2 & ACR122UCommand.redMask != 0 { red = p2 & ACR122UCommand.finalRed != 0 }
            if p2 & ACR122UCommand.greenMask != 0 { green = p2 & ACR122UCommand.finalGreen != 0 }
            if p2 & (ACR122UCommand.redMask | ACR122UCommand.greenMask) != 0 {
                parts.insert("led=\(color.rawValue)", at: 0)
            }
            if link != 0 && repetitions > 0 {
                let milliseconds = (link & 1 != 0 ? Int(t1) : 0) * 100 + (link & 2 != 0 ? Int(t2) : 0) * 100
                parts.append("beep=\(milliseconds)ms×\(repetitions)")
            }
            return parts.isEmpty ? "nothing" : parts.joined(separator: " ")
        }
    }
}
