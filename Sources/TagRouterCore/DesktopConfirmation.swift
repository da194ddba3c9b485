import CSystemd
import Foundation
import Glibc
import NDEF
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
    /// The question was dropped before the user answered, and why: the same link already waits for an answer,
    /// too many questions wait, the tap was cancelled or the router is stopping (a question on screen is then
    /// closed).
    case dropped(String)
}

/// The desktop's notification server, through the freedesktop Notifications interface on the session bus
/// (libsystemd's sd-bus): a notification naming the reader, the rule and the link, with "Open" and "Dismiss"
/// actions and a default action; the link opens only on "Open" or the default action, never on a timeout or a
/// dismissal.
///
/// One question is on screen at a time (``QuestionQueue``): a question for a link that is already on screen or
/// waiting is dropped, and at most 4 more wait their turn. Only the server that
/// showed the notification can answer it: its signals are matched on its unique bus name, so another client of
/// the session bus cannot. A question is closed when its tap is cancelled or the router stops (``stop()``).
/// Copies share their questions.
public struct DesktopNotifications: OpenConfirming {
    /// How long a question waits for its answer before it is withdrawn (and the link not opened).
    public var waitLimit: Duration
    /// How long the server shows the notification, in milliseconds; -1 lets the server decide.
    public var expireMilliseconds: Int32
    /// The questions on screen and waiting.
    private let desk: QuestionDesk

    /// Creates the confirmer.
    /// - Parameters:
    ///   - waitLimit: how long to wait for an answer (default 2 minutes).
    ///   - expireMilliseconds: how long the notification is shown; -1 (the default) lets the server decide.
    public init(waitLimit: Duration = .seconds(120), expireMilliseconds: Int32 = -1) {
        self.waitLimit = waitLimit
        self.expireMilliseconds = expireMilliseconds
        self.desk = QuestionDesk(capacity: QuestionQueue.defaultCapacity)
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
        let answer = PendingAnswer()
        let ticket = desk.ticket()
        return await withTaskCancellationHandler {
            let question = QuestionQueue.Question(ticket: ticket, uri: uri, rule: rule, reader: reader)
            desk.ask(question, answer: answer) { question, withdrawal in
                Self.show(question, expire: expire, limit: limit, withdrawal: withdrawal)
            }
            return await withCheckedContinuation { answer.wait($0) }
        } onCancel: {
            // The tap goes on at once; the question, waiting or on screen, is withdrawn.
            answer.resolve(.dropped("the tap was cancelled"))
            desk.withdraw(ticket)
        }
    }

    /// Withdraws every question, closing the one on screen, and asks no more: the router is stopping. Each
    /// question is answered ``ConfirmationAnswer/dropped(_:)``.
    public func stop() {
        desk.stop()
    }

    /// Shows `question` and waits for its answer, on the calling thread (sd-bus blocks); `withdrawal` ends the wait.
    private static func show(
        _ question: QuestionQueue.Question, expire: Int32, limit: UInt64, withdrawal: Int32
    ) -> ConfirmationAnswer {
        Self.withSessionBus { bus in
            var markup: Int32 = 0
            var server = [CChar](repeating: 0, count: 256)
            let actions = tr_notifications_capabilities(bus, &markup, &server, server.count)
            if actions < 0 {
                return .unavailable(
                    "no notification server answers on the session bus (\(String(cString: strerror(-actions))))")
            }
            if actions == 0 {
                return .unavailable("the notification server does not support actions (buttons)")
            }
            var key = [CChar](repeating: 0, count: 64)
            let body = Self.body(uri: question.uri, rule: question.rule, reader: question.reader, markup: markup != 0)
            let result = tr_notification_ask(
                bus, server, "TagRouter", "Open a link from an NFC tag?", body, expire, limit, withdrawal, &key,
                key.count)
            if result < 0 {
                return .unavailable("the notification server failed (\(String(cString: strerror(-result))))")
            }
            if result == 2 { return .dropped("withdrawn") }
            let action = String(decoding: key.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return result == 1 && (action == "default" || action == "open") ? .open : .declined
        } ?? .unavailable("no session bus (DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR/bus)")
    }

    /// The notification's body: the reader, the rule and the link, each with its invisible characters made
    /// visible (``visible(_:)``), then escaped as markup when the server reads the body as markup (it lists
    /// `body-markup` among its capabilities), and sent as it is otherwise.
    static func body(uri: String, rule: String, reader: String, markup: Bool) -> String {
        func shown(_ text: String) -> String {
            markup ? escapedMarkup(visible(text)) : visible(text)
        }
        return "Reader \(shown(reader)), rule \(shown(rule)):\n\(shown(uri))"
    }

    /// `text` with `&`, `<`, `>` and quotes written as entities.
    static func escapedMarkup(_ text: String) -> String {
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

    /// `text` with every character that shows nothing or moves other text written out as `\u{XXXX}`
    /// (``NDEF/PrintableText/visible(_:)``, the console's escaper too).
    static func visible(_ text: String) -> String { PrintableText.visible(text) }

    /// Runs `body` with the user's session bus; nil when there is none.
    private static func withSessionBus<T>(_ body: (OpaquePointer) -> T) -> T? {
        var bus: OpaquePointer?
        guard sd_bus_open_user(&bus) >= 0, let bus else { return nil }
        defer { sd_bus_flush_close_unref(bus) }
        return body(bus)
    }
}

/// The questions of one confirmer: at most one on screen, a few more waiting their turn in order
/// (docs/rules.md, "Confirmation before open"). A value with no effects: ``QuestionDesk`` keeps it under its lock
/// and carries out what its methods return.
struct QuestionQueue: Sendable, Equatable {
    /// How many questions may wait while one is on screen, by default.
    static let defaultCapacity = 4

    /// One question.
    struct Question: Sendable, Equatable {
        /// Its number, in the order questions were asked.
        var ticket: UInt64
        var uri: String
        var rule: String
        var reader: String
    }

    /// What becomes of a question asked.
    enum Admission: Equatable {
        /// Show it now: nothing is on screen.
        case show
        /// It waits its turn.
        case wait
        /// Dropped: a question for the same link is on screen or waiting.
        case duplicate
        /// Dropped: ``capacity`` questions already wait.
        case full
        /// Dropped: the confirmer stopped.
        case stopped
    }

    /// What withdrawing a question takes.
    enum Withdrawal: Equatable {
        /// It was waiting and is gone: answer it.
        case dropped
        /// It is on screen: close it; its end (``ended(_:)``) comes when the notification is closed.
        case close
        /// Nothing: the question ended, or was never admitted.
        case none
    }

    /// How many questions may wait.
    let capacity: Int
    /// The question on screen, until its thread ends.
    private(set) var shown: Question?
    /// The questions waiting, first to be shown first.
    private(set) var waiting: [Question] = []
    /// Whether the question on screen was withdrawn (it is being closed).
    private(set) var shownWithdrawn = false
    /// Whether the confirmer stopped: every later question is dropped.
    private(set) var isStopped = false

    init(capacity: Int = Self.defaultCapacity) {
        self.capacity = max(0, capacity)
    }

    /// Admits `question`: shown now, waiting, or dropped.
    mutating func ask(_ question: Question) -> Admission {
        if isStopped { return .stopped }
        if shown?.uri == question.uri || waiting.contains(where: { $0.uri == question.uri }) { return .duplicate }
        if shown == nil {
            shown = question
            shownWithdrawn = false
            return .show
        }
        if waiting.count >= capacity { return .full }
        waiting.append(question)
        return .wait
    }

    /// The question on screen ended (answered, closed or withdrawn); returns the next one to show.
    mutating func ended(_ ticket: UInt64) -> Question? {
        guard shown?.ticket == ticket else { return nil }
        shown = waiting.isEmpty ? nil : waiting.removeFirst()
        shownWithdrawn = false
        return shown
    }

    /// Withdraws the question numbered `ticket` (its tap was cancelled).
    mutating func withdraw(_ ticket: UInt64) -> Withdrawal {
        if let index = waiting.firstIndex(where: { $0.ticket == ticket }) {
            waiting.remove(at: index)
            return .dropped
        }
        guard shown?.ticket == ticket, !shownWithdrawn else { return .none }
        shownWithdrawn = true
        return .close
    }

    /// Stops: every waiting question is dropped, the one on screen (returned unless already withdrawn) is to be
    /// closed, and every later question is dropped.
    mutating func stop() -> (close: Question?, dropped: [Question]) {
        isStopped = true
        let dropped = waiting
        waiting = []
        let close = shownWithdrawn ? nil : shown
        if shown != nil { shownWithdrawn = true }
        return (close, dropped)
    }
}

/// The confirmer's one owner of its questions: the ``QuestionQueue`` and, for each question, its waiting
/// answer and, on screen, the descriptor that withdraws it. Each question shown has a thread of its own while
/// sd-bus waits for the answer; one at a time.
final class QuestionDesk: Sendable {
    private struct State: ~Copyable {
        var queue: QuestionQueue
        var nextTicket: UInt64 = 0
        var answers: [UInt64: PendingAnswer] = [:]
        /// The withdrawal descriptor of the question on screen.
        var withdrawal: Withdrawal?
    }

    private let state: Mutex<State>

    init(capacity: Int) {
        state = Mutex(State(queue: QuestionQueue(capacity: capacity)))
    }

    /// A number for the next question.
    func ticket() -> UInt64 {
        state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
    }

    /// Admits `question`, whose answer goes to `answer`; `show` shows a question and waits for its answer on a
    /// thread of its own. An answer already given (the tap was cancelled) admits nothing.
    func ask(
        _ question: QuestionQueue.Question, answer: PendingAnswer,
        show: @escaping @Sendable (QuestionQueue.Question, Int32) -> ConfirmationAnswer
    ) {
        let (admission, withdrawal, capacity): (QuestionQueue.Admission?, Withdrawal?, Int) = state.withLock {
            state in
            // Under the lock: a cancellation either came before (nothing is admitted) or finds the question.
            guard !answer.isResolved else { return (nil, nil, state.queue.capacity) }
            let admission = state.queue.ask(question)
            switch admission {
            case .show:
                let withdrawal = Withdrawal()
                state.withdrawal = withdrawal
                state.answers[question.ticket] = answer
                return (admission, withdrawal, state.queue.capacity)
            case .wait:
                state.answers[question.ticket] = answer
                return (admission, nil, state.queue.capacity)
            case .duplicate, .full, .stopped:
                return (admission, nil, state.queue.capacity)
            }
        }
        switch admission {
        case .show?:
            if let withdrawal { start(question, withdrawal: withdrawal, show: show) }
        case .duplicate?:
            answer.resolve(.dropped("a question about the same link is already shown or waiting"))
        case .full?:
            answer.resolve(.dropped("\(capacity) questions already wait for an answer"))
        case .stopped?:
            answer.resolve(Self.stopping)
        case .wait?, nil:
            break
        }
    }

    /// Withdraws the question numbered `ticket`: dropped if waiting, closed if on screen.
    func withdraw(_ ticket: UInt64) {
        let (answer, withdrawal): (PendingAnswer?, Withdrawal?) = state.withLock { state in
            switch state.queue.withdraw(ticket) {
            case .dropped: return (state.answers.removeValue(forKey: ticket), nil)
            case .close: return (nil, state.withdrawal)
            case .none: return (nil, nil)
            }
        }
        answer?.resolve(.dropped("the tap was cancelled"))
        withdrawal?.signal()
    }

    /// Withdraws every question and admits no more.
    ///
    /// The question on screen is answered by its thread once the notification is closed (at once: the close
    /// waits for no reply), so that the router does not exit before it; without a withdrawal descriptor, at once.
    func stop() {
        let (answers, withdrawal): ([PendingAnswer], Withdrawal?) = state.withLock { state in
            let (close, dropped) = state.queue.stop()
            var answers = dropped.compactMap { state.answers.removeValue(forKey: $0.ticket) }
            if let close, (state.withdrawal?.descriptor ?? -1) < 0, let answer = state.answers[close.ticket] {
                answers.append(answer)
            }
            return (answers, close == nil ? nil : state.withdrawal)
        }
        for answer in answers { answer.resolve(Self.stopping) }
        withdrawal?.signal()
    }

    /// The answer of a question the router's stop dropped or withdrew.
    static let stopping = ConfirmationAnswer.dropped("the router is stopping")

    /// Shows `question` on a thread of its own; when its answer comes, shows the next question waiting.
    private func start(
        _ question: QuestionQueue.Question, withdrawal: Withdrawal,
        show: @escaping @Sendable (QuestionQueue.Question, Int32) -> ConfirmationAnswer
    ) {
        // sd-bus blocks while it waits for the answer: on a thread of its own, not the tap's.
        Thread.detachNewThread {
            let answer = show(question, withdrawal.descriptor)
            withdrawal.close()
            let (pending, next, nextWithdrawal, stopped): (PendingAnswer?, QuestionQueue.Question?, Withdrawal?, Bool) =
                self.state.withLock { state in
                    let pending = state.answers.removeValue(forKey: question.ticket)
                    let next = state.queue.ended(question.ticket)
                    state.withdrawal = next.map { _ in Withdrawal() }
                    return (pending, next, state.withdrawal, state.queue.isStopped)
                }
            // Withdrawn: by the router's stop (the tap's cancellation answered already).
            if case .dropped = answer, stopped {
                pending?.resolve(Self.stopping)
            } else {
                pending?.resolve(answer)
            }
            if let next, let nextWithdrawal { self.start(next, withdrawal: nextWithdrawal, show: show) }
        }
    }
}

/// The descriptor that withdraws a question on screen: an eventfd the C side polls with the bus
/// (`tr_notification_ask`). Signalled by the tap's cancellation or the router's stop; closed by the question's
/// thread when it is done with it (under the lock, so that a late signal never writes to a reused descriptor).
final class Withdrawal: Sendable {
    private let fd: Mutex<Int32>
    /// The descriptor, -1 when none could be made (the question then ends at its answer or its time limit).
    let descriptor: Int32

    init() {
        let fd = tr_withdrawal_open()
        self.fd = Mutex(fd)
        descriptor = fd
    }

    /// Withdraws the question.
    func signal() {
        fd.withLock { fd in
            if fd >= 0 { tr_withdrawal_signal(fd) }
        }
    }

    /// Closes the descriptor; later signals do nothing.
    func close() {
        fd.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }
}

/// One question's answer, given once: by its thread, by its withdrawal, or before it waited (the tap was
/// cancelled before it asked); the first answer wins.
final class PendingAnswer: Sendable {
    private enum State {
        case new
        case waiting(CheckedContinuation<ConfirmationAnswer, Never>)
        case resolved(ConfirmationAnswer)
    }

    private let state = Mutex(State.new)

    /// Whether it was answered.
    var isResolved: Bool {
        state.withLock { state in
            if case .resolved = state { return true }
            return false
        }
    }

    /// Resumes `continuation` with the answer, now if it was given, else when it is.
    func wait(_ continuation: CheckedContinuation<ConfirmationAnswer, Never>) {
        let answer: ConfirmationAnswer? = state.withLock { state in
            switch state {
            case .new:
                state = .waiting(continuation)
                return nil
            case .waiting:
                preconditionFailure("a question's answer is waited for once")
            case .resolved(let answer):
                return answer
            }
        }
        if let answer { continuation.resume(returning: answer) }
    }

    /// Gives the answer, unless one was given.
    func resolve(_ answer: ConfirmationAnswer) {
        let continuation: CheckedContinuation<ConfirmationAnswer, Never>? = state.withLock { state in
            switch state {
            case .new:
                state = .resolved(answer)
                return nil
            case .waiting(let continuation):
                state = .resolved(answer)
                return continuation
            case .resolved:
                return nil
            }
        }
        continuation?.resume(returning: answer)
    }
}
