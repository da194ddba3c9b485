public import Logging
public import NFCTag
public import ReaderFeedback
import Synchronization
public import TagRules

/// Shows a tap's outcome on its reader: finds the reader's `readers:` entry and family, and sends the signal's
/// commands over the tap's card connection, on the reader's thread (docs/tags.md, "Reader feedback").
///
/// A reader's family comes from its entry's `family:`, else from its name (``ReaderFeedback/ReaderFamily/from(readerName:)``),
/// else from asking it once per appearance (`FF 00 48 00 00`). A command that fails is logged once per reader
/// appearance and never tried again on the tap's path: the next tap tries its own signal.
public final class ReaderSignaller: Sendable {
    private struct ReaderState {
        /// The family asked of the reader (nil inside: it answered nothing a family is known by).
        var askedFamily: ReaderFamily??
        /// Whether a failure was logged since the reader appeared.
        var toldFailure = false
    }

    let logger: Logger
    private let readers = Mutex<[String: ReaderState]>([:])

    /// Creates a signaller.
    /// - Parameter logger: where failures are logged.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// The signal an outcome shows on `reader`: its `readers:` entry's (the family's defaults filled in), replaced
    /// by the deciding rule's `feedback:` for that outcome.
    /// - Parameters:
    ///   - outcome: the outcome.
    ///   - settings: the reader's entry; nil: no signal.
    ///   - family: the reader's family, if known.
    ///   - rule: the rule that decided the tap, if any.
    /// - Returns: the signal, or nil when the outcome shows nothing.
    public static func signal(
        for outcome: FeedbackOutcome, settings: ReaderSettings?, family: ReaderFamily?, rule: Rule?
    ) -> FeedbackSignal? {
        guard let settings else { return nil }
        var plan = settings.plan(for: family)
        if let overrides = rule?.feedback { plan = plan.merging(overrides) }
        return plan[outcome]
    }

    /// Shows the outcome on the reader, over `channel` (the tap's open connection).
    /// - Parameters:
    ///   - outcome: how the tap ended.
    ///   - reader: the reader name.
    ///   - settings: the reader's `readers:` entry; nil: nothing is sent.
    ///   - rule: the rule that decided the tap, if any.
    ///   - channel: the tap's card connection; nil: nothing can be sent.
    /// - Returns: the commands sent (for tests and logs).
    @discardableResult
    public func show(
        _ outcome: FeedbackOutcome, reader: String, settings: ReaderSettings?, rule: Rule?,
        channel: (any CardChannel)?
    ) async -> [[UInt8]] {
        guard let settings, let channel else { return [] }
        let family = await self.family(of: reader, settings: settings, channel: channel)
        guard let family, family.takesPseudoAPDUs else { return [] }
        guard let signal = Self.signal(for: outcome, settings: settings, family: family, rule: rule) else {
            return []
        }
        var sent: [[UInt8]] = []
        for command in ACR122UCommand.commands(for: signal) {
            do {
                let answer = try await channel.transmit(command.bytes)
                sent.append(command.bytes)
                guard answer.count >= 2, answer[answer.count - 2] == 0x90 else {
                    tell(reader, "the reader answered \(Self.hex(answer)) to \(Self.hex(command.bytes))")
                    break
                }
            } catch {
                tell(reader, "\(error)")
                break
            }
        }
        logger.debug(
            "reader.feedback",
            metadata: [
                "reader.name": "\(reader)", "feedback.outcome": "\(outcome.rawValue)",
                "feedback.signal": "\(signal.summary)",
            ])
        return sent
    }

    /// Switches the reader's own beep on card detection off, once per appearance, when its entry says `quiet: true`
    /// (docs/tags.md, "Reader feedback"): opens it directly, asks its driver for the escape command
    /// (`FEATURE_CCID_ESC_COMMAND`, tag 0x13 of `CM_IOCTL_GET_FEATURE_REQUEST`), and sends the family's command
    /// through it; where the setting lives in the reader's flash (ACR1252 family, uTrust), reads it first and
    /// writes only when it differs. A reader without the escape command gets no command and one log line.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - settings: its `readers:` entry.
    ///   - open: opens the reader directly (``CardReader/openDirect(reader:)``).
    /// - Returns: the escape commands sent, in order (for tests).
    @discardableResult
    public func applyQuietMode(
        reader: String, settings: ReaderSettings, open: () async throws -> (any ReaderControl)?
    ) async -> [[UInt8]] {
        guard settings.quiet else { return [] }
        let control: any ReaderControl
        do {
            guard let opened = try await open() else { return [] }
            control = opened
        } catch {
            logger.warning(
                "reader.quiet_failed: the reader could not be opened for its own commands",
                metadata: ["reader.name": "\(reader)", "error": "\(error)"])
            return []
        }
        let sent = await quiet(reader: reader, settings: settings, control: control)
        await control.close()
        return sent
    }

    /// Quiet mode over an open direct connection.
    private func quiet(reader: String, settings: ReaderSettings, control: any ReaderControl) async -> [[UInt8]] {
        let answer = try? await control.control(CCIDFeatures.controlCode(3400), [])
        let features = answer.flatMap { try? CCIDFeatures(parsing: $0) }
        guard let escape = features?.escapeControlCode else {
            let family = settings.family ?? ReaderFamily.from(readerName: reader)
            var message =
                "reader.escape_unavailable: the reader's driver offers no escape command (FEATURE_CCID_ESC_COMMAND); "
                + "quiet mode is not set"
            if family != .vpcd {
                message +=
                    ". For libccid: set ifdDriverOptions to 0x0001 in "
                    + "/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Info.plist, then sudo systemctl restart pcscd"
            }
            logger.info("\(message)", metadata: ["reader.name": "\(reader)"])
            return []
        }
        var family = settings.family ?? ReaderFamily.from(readerName: reader)
        var sent: [[UInt8]] = []
        func send(_ command: [UInt8]) async throws -> [UInt8] {
            sent.append(command)
            return try await control.control(escape, command)
        }
        do {
            if family == nil {
                family = ReaderFamily.from(firmwareAnswer: try await send(ACR122UCommand.firmwareVersion.bytes))
            }
            let done: String
            switch family {
            case .acr122u:
                _ = try await send(ACR122UCommand.detectionBeep(on: false).bytes)
                done = "detection beep off"
            case .acr1252:
                let current = try await send([0xE0, 0x00, 0x00, 0x21, 0x00])
                guard let behaviour = current.last else { throw QuietModeError("no answer to E0 00 00 21 00") }
                if behaviour & 0x08 != 0 {
                    _ = try await send([0xE0, 0x00, 0x00, 0x21, 0x01, behaviour & ~0x08])
                    done = "beep on card insertion cleared"
                } else {
                    done = "already quiet"
                }
            case .utrust:
                let current = try await send([0x51, 0xFF])
                if current.first != 0x00 {
                    _ = try await send([0x51, 0x00])
                    done = "buzzer off"
                } else {
                    done = "already quiet"
                }
            case .omnikey, .vpcd, nil:
                logger.info(
                    "reader.quiet_unsupported: TagRouter knows no quiet-mode command for this reader",
                    metadata: ["reader.name": "\(reader)", "reader.family": "\(family?.rawValue ?? "unknown")"])
                return sent
            }
            logger.info("reader.quiet", metadata: ["reader.name": "\(reader)", "reader.quiet": "\(done)"])
        } catch {
            logger.warning(
                "reader.quiet_failed: not retried until the reader appears again",
                metadata: ["reader.name": "\(reader)", "error": "\(error)"])
        }
        return sent
    }

    /// Forgets what was learned of a reader: it went away.
    /// - Parameter reader: the reader name.
    public func readerRemoved(_ reader: String) {
        _ = readers.withLock { $0.removeValue(forKey: reader) }
    }

    /// The reader's family: written, from its name, or asked once per appearance.
    private func family(of reader: String, settings: ReaderSettings, channel: any CardChannel) async
        -> ReaderFamily?
    {
        if let family = settings.family ?? ReaderFamily.from(readerName: reader) { return family }
        if let asked = readers.withLock({ $0[reader]?.askedFamily }) { return asked }
        // A tag pulled away makes the question fail: asked again at the next tap.
        guard let answer = try? await channel.transmit(ACR122UCommand.firmwareVersion.bytes) else { return nil }
        let family = ReaderFamily.from(firmwareAnswer: answer)
        readers.withLock { $0[reader, default: ReaderState()].askedFamily = .some(family) }
        if family == nil {
            let message =
                "reader.feedback_unsupported: the reader's name names no known family and it did not answer FF 00 48 "
                + "with an ACR122U-class version; add 'family:' to its readers: entry"
            logger.info("\(message)", metadata: ["reader.name": "\(reader)"])
        }
        return family
    }

    /// Logs a failed command once per reader appearance.
    private func tell(_ reader: String, _ why: String) {
        let first = readers.withLock { readers in
            defer { readers[reader, default: ReaderState()].toldFailure = true }
            return readers[reader]?.toldFailure != true
        }
        let metadata: Logger.Metadata = ["reader.name": "\(reader)", "error": "\(why)"]
        if first {
            logger.warning("reader.feedback_failed: not retried; the next tap sends its own signal", metadata: metadata)
        } else {
            logger.debug("reader.feedback_failed", metadata: metadata)
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }
}

/// A reader's answer to a quiet-mode command that says nothing.
struct QuietModeError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
