import CSystemd
import Foundation
import Synchronization

/// Asks the user before a tag opens a link (docs/rules.md, "Confirmation before open").
public protocol OpenConfirming: Sendable {
    /// Asks whether to open `uri`, and waits for the answer.
    /// - Parameters:
    ///   - uri: the link.
    ///   - rule: the rule that would open it.
    ///   - reader: the reader the tag is on.
    /// - Returns: the answer.
    func confirm(uri: String, rule: String, reader: String) async -> ConfirmationAnswer
}

/// What came of asking.
public enum ConfirmationAnswer: Sendable, Hashable {
    /// The user chose "Open" (or the notification's default action).
    case open
    /// The user dismissed the notification, or it expired, or nobody answered in time.
    case declined
    /// The question could not be shown: no notification server, or one without actions.
    case unavailable(String)
}

/// The desktop's notification server, through the freedesktop Notifications interface on the session bus
/// (libsystemd's sd-bus): a notification naming the reader, the rule and the link, with "Open" and "Dismiss"
/// actions and a default action; the link opens only on "Open" or the default action, never on a timeout or a
/// dismissal.
public struct DesktopNotifications: OpenConfirming {
    /// How long a question waits for its answer before it is withdrawn (and the link not opened).
    public var waitLimit: Duration
    /// How long the server shows the notification, in milliseconds; -1 lets the server decide.
    public var expireMilliseconds: Int32

    /// Creates the confirmer.
    /// - Parameters:
    ///   - waitLimit: how long to wait for an answer (default 2 minutes).
    ///   - expireMilliseconds: how long the notification is shown; -1 (the default) lets the server decide.
    public init(waitLimit: Duration = .seconds(120), expireMilliseconds: Int32 = -1) {
        self.waitLimit = waitLimit
        self.expireMilliseconds = expireMilliseconds
    }

    /// Whether questions can be shown now: nil when a notification server with actions answers on the session
    /// bus, else why not (for `doctor` and the router's log).
    public static func unavailability() -> String? {
        let reason: String?? = withSessionBus { bus -> String? in
            let actions = tr_notifications_have_actions(bus)
            if actions < 0 {
                return "no notification server answers on the session bus (\(String(cString: strerror(-actions))))"
            }
            return actions == 0 ? "the notification server does not support actions (buttons)" : nil
        }
        return reason ?? "no session bus (DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR/bus)"
    }

    public func confirm(uri: String, rule: String, reader: String) async -> ConfirmationAnswer {
        let limit = UInt64(max(0, waitLimit.components.seconds)) * 1_000_000
        let expire = expireMilliseconds
        return await withCheckedContinuation { continuation in
            // sd-bus blocks while it waits for the answer: on a thread of its own, not the tap's.
            Thread.detachNewThread {
                let answer: ConfirmationAnswer =
                    Self.withSessionBus { bus in
                        let actions = tr_notifications_have_actions(bus)
                        if actions < 0 {
                            return .unavailable(
                                "no notification server answers on the session bus (\(String(cString: strerror(-actions))))"
                            )
                        }
                        if actions == 0 {
                            return .unavailable("the notification server does not support actions (buttons)")
                        }
                        var key = [CChar](repeating: 0, count: 64)
                        let result = tr_notification_ask(
                            bus, "TagRouter", "Open a link from an NFC tag?",
                            Self.body(uri: uri, rule: rule, reader: reader), expire, limit, &key, key.count)
                        if result < 0 {
                            return .unavailable(
                                "the notification server failed (\(String(cString: strerror(-result))))")
                        }
                        let action = String(
                            decoding: key.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                        return result == 1 && (action == "default" || action == "open") ? .open : .declined
                    } ?? .unavailable("no session bus (DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR/bus)")
                continuation.resume(returning: answer)
            }
        }
    }

    /// The notification's body: the reader, the rule and the link, escaped (a server may read the body as markup).
    static func body(uri: String, rule: String, reader: String) -> String {
        func escaped(_ text: String) -> String {
            var out = ""
            for character in text {
                switch character {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                case "'": out += "&#39;"
                default: out.append(character)
                }
            }
            return out
        }
        return "Reader \(escaped(reader)), rule \(escaped(rule)):\n\(escaped(uri))"
    }

    /// Runs `body` with the user's session bus; nil when there is none.
    private static func withSessionBus<T>(_ body: (OpaquePointer) -> T) -> T? {
        var bus: OpaquePointer?
        guard sd_bus_open_user(&bus) >= 0, let bus else { return nil }
        defer { sd_bus_flush_close_unref(bus) }
        return body(bus)
    }
}
