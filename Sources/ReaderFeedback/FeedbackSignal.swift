/// How a tap ended, as a reader shows it (docs/tags.md, "Reader feedback").
public enum FeedbackOutcome: String, Sendable, CaseIterable, Hashable {
    /// A rule matched and its first action started.
    case accepted
    /// A door rule refused the tag (any denied reason).
    case denied
    /// No rule matched.
    case ignored
    /// The read failed: the tag was pulled away, or it could not be read or decoded.
    case failed
    /// The router waits for a desktop confirmation before an `open`.
    case asking
}

/// The colour the reader's LED shows after a signal.
public enum LEDColor: String, Sendable, CaseIterable, Hashable {
    /// Green on, red off.
    case green
    /// Red on, green off.
    case red
    /// Both on (an ACR122U shows orange).
    case orange
    /// Both off.
    case off

    /// Whether the red LED is on.
    public var red: Bool { self == .red || self == .orange }
    /// Whether the green LED is on.
    public var green: Bool { self == .green || self == .orange }
}

/// How the reader's buzzer sounds.
public enum BeepPattern: String, Sendable, CaseIterable, Hashable {
    /// One beep of 100 ms.
    case short
    /// One beep of 500 ms.
    case long
    /// Two beeps of 100 ms, 100 ms apart.
    case twice
    /// No beep.
    case none
}

/// What a reader shows for one outcome: an LED colour (kept after the signal), a beep and a number of blinks of
/// that colour (docs/rules.md, "`readers:`: what the reader shows").
public struct FeedbackSignal: Sendable, Hashable {
    /// The colour after the signal; `nil` leaves the LEDs as they are.
    public var led: LEDColor?
    /// The beep.
    public var beep: BeepPattern
    /// How many times the colour blinks before it stays (0: no blinking).
    public var blink: Int

    /// The largest blink count (one byte of the ACR122U's command).
    public static let maximumBlinks = 255

    /// Creates a signal.
    /// - Parameters:
    ///   - led: the colour after the signal; `nil` leaves the LEDs alone.
    ///   - beep: the beep; none by default.
    ///   - blink: how many times the colour blinks first; none by default.
    public init(led: LEDColor? = nil, beep: BeepPattern = .none, blink: Int = 0) {
        self.led = led
        self.beep = beep
        self.blink = blink
    }

    /// Whether the signal shows nothing at all.
    public var isEmpty: Bool { led == nil && beep == .none && blink == 0 }

    /// `led=green beep=short blink=3`, the parts it has; `none` for an empty signal.
    public var summary: String {
        var parts: [String] = []
        if let led { parts.append("led=\(led.rawValue)") }
        if beep != .none { parts.append("beep=\(beep.rawValue)") }
        if blink > 0 { parts.append("blink=\(blink)") }
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }
}

/// The signal of each outcome; an outcome without one shows nothing.
public struct FeedbackPlan: Sendable, Hashable {
    /// The signals by outcome.
    public var signals: [FeedbackOutcome: FeedbackSignal]

    /// Creates a plan.
    /// - Parameter signals: the signal of each outcome that shows one.
    public init(_ signals: [FeedbackOutcome: FeedbackSignal] = [:]) {
        self.signals = signals
    }

    /// The signal of an outcome, nil when it shows nothing.
    public subscript(outcome: FeedbackOutcome) -> FeedbackSignal? {
        get { signals[outcome].flatMap { $0.isEmpty ? nil : $0 } }
        set { signals[outcome] = newValue }
    }

    /// This plan with the outcomes `overrides` names replaced by its signals (a rule's `feedback:`).
    /// - Parameter overrides: the signals that take precedence; an empty signal there means "none".
    /// - Returns: the merged plan.
    public func merging(_ overrides: FeedbackPlan) -> FeedbackPlan {
        FeedbackPlan(signals.merging(overrides.signals) { _, new in new })
    }
}
