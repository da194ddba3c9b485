import Testing

@testable import TagRouterCore

/// The questions of one desktop (docs/rules.md, "Confirmation before open"): one on screen, a few waiting in
/// order, the same link never twice, and withdrawals; and what the notification's body shows.
@Suite struct QuestionQueueTests {
    static func question(_ ticket: UInt64, _ uri: String) -> QuestionQueue.Question {
        QuestionQueue.Question(ticket: ticket, uri: uri, rule: "links", reader: "Virtual PCD 00 00")
    }

    @Test("one question on screen, the next ones wait up to the cap, and they are shown in the order asked")
    func capAndOrder() {
        var queue = QuestionQueue(capacity: 2)
        #expect(queue.ask(Self.question(1, "https://example.com/1")) == .show)
        #expect(queue.ask(Self.question(2, "https://example.com/2")) == .wait)
        #expect(queue.ask(Self.question(3, "https://example.com/3")) == .wait)
        #expect(queue.ask(Self.question(4, "https://example.com/4")) == .full)
        #expect(queue.shown?.ticket == 1)
        #expect(queue.waiting.map(\.ticket) == [2, 3])
        // Another question's end changes nothing; the one on screen ending shows the next.
        #expect(queue.ended(2) == nil)
        #expect(queue.ended(1)?.ticket == 2)
        #expect(queue.ask(Self.question(5, "https://example.com/5")) == .wait)
        #expect(queue.ended(2)?.ticket == 3)
        #expect(queue.ended(3)?.ticket == 5)
        #expect(queue.ended(5) == nil)
        #expect(queue.shown == nil && queue.waiting.isEmpty)
        #expect(queue.ask(Self.question(6, "https://example.com/6")) == .show)
    }

    @Test("a question for a link on screen or waiting is dropped; once it ended, the link may be asked again")
    func duplicatesAreDropped() {
        var queue = QuestionQueue()
        #expect(queue.ask(Self.question(1, "https://example.com/a")) == .show)
        #expect(queue.ask(Self.question(2, "https://example.com/b")) == .wait)
        #expect(queue.ask(Self.question(3, "https://example.com/a")) == .duplicate)
        #expect(queue.ask(Self.question(4, "https://example.com/b")) == .duplicate)
        #expect(queue.waiting.map(\.ticket) == [2])
        #expect(queue.ended(1)?.ticket == 2)
        #expect(queue.ask(Self.question(5, "https://example.com/a")) == .wait)
    }

    @Test("a waiting question withdrawn leaves the queue; the one on screen is closed once, and stays until it ends")
    func withdrawals() {
        var queue = QuestionQueue()
        _ = queue.ask(Self.question(1, "https://example.com/1"))
        _ = queue.ask(Self.question(2, "https://example.com/2"))
        _ = queue.ask(Self.question(3, "https://example.com/3"))
        #expect(queue.withdraw(2) == .dropped)
        #expect(queue.waiting.map(\.ticket) == [3])
        #expect(queue.withdraw(2) == .none)
        #expect(queue.withdraw(9) == .none)
        #expect(queue.withdraw(1) == .close)
        #expect(queue.withdraw(1) == .none, "closed once")
        // Until its thread ends, the question being closed still holds the screen and its link.
        #expect(queue.shown?.ticket == 1)
        #expect(queue.ask(Self.question(4, "https://example.com/1")) == .duplicate)
        #expect(queue.ended(1)?.ticket == 3)
        #expect(queue.withdraw(3) == .close)
        #expect(queue.ended(3) == nil)
    }

    @Test("stopping closes the question on screen, drops those waiting, and drops every later one")
    func stop() {
        var queue = QuestionQueue()
        _ = queue.ask(Self.question(1, "https://example.com/1"))
        _ = queue.ask(Self.question(2, "https://example.com/2"))
        _ = queue.ask(Self.question(3, "https://example.com/3"))
        let (close, dropped) = queue.stop()
        #expect(close?.ticket == 1)
        #expect(dropped.map(\.ticket) == [2, 3])
        #expect(queue.ask(Self.question(4, "https://example.com/4")) == .stopped)
        #expect(queue.withdraw(1) == .none, "already being closed")
        #expect(queue.ended(1) == nil)
        #expect(queue.shown == nil)
        let again = queue.stop()
        #expect(again.close == nil && again.dropped.isEmpty)
    }

    @Test("a question already withdrawn is not closed again when the router stops")
    func stopAfterWithdrawal() {
        var queue = QuestionQueue()
        _ = queue.ask(Self.question(1, "https://example.com/1"))
        #expect(queue.withdraw(1) == .close)
        #expect(queue.stop().close == nil)
    }

    @Test("the body is escaped as markup only for a server that reads markup")
    func markupOrPlain() {
        let uri = "https://example.com/a?x=<b>&y='1'\"2\""
        #expect(
            DesktopNotifications.body(uri: uri, rule: "r&d", reader: "<reader>", markup: true)
                == "Reader &lt;reader&gt;, rule r&amp;d:\n"
                + "https://example.com/a?x=&lt;b&gt;&amp;y=&#39;1&#39;&quot;2&quot;")
        #expect(
            DesktopNotifications.body(uri: uri, rule: "r&d", reader: "<reader>", markup: false)
                == "Reader <reader>, rule r&d:\n\(uri)")
    }

    @Test(
        "bidi controls, zero-width and other format characters and control characters are shown as escapes",
        arguments: [
            ("https://example.com/\u{202E}gpj.exe", #"https://example.com/\u{202E}gpj.exe"#),
            ("https://exa\u{200B}mple.com", #"https://exa\u{200B}mple.com"#),
            ("https://example.com/\u{2066}a\u{2069}", #"https://example.com/\u{2066}a\u{2069}"#),
            (
                "\u{FEFF}https://example.com/\u{200E}\u{200F}\u{2060}\u{2064}",
                #"\u{FEFF}https://example.com/\u{200E}\u{200F}\u{2060}\u{2064}"#
            ),
            (
                "https://example.com/\u{7}\n\u{1B}[2J\u{85}\u{2028}",
                #"https://example.com/\u{0007}\u{000A}\u{001B}[2J\u{0085}\u{2028}"#
            ),
            ("https://例え.jp/ページ?q=é", "https://例え.jp/ページ?q=é"),
        ])
    func invisibleCharactersAreShown(link: String, shown: String) {
        #expect(DesktopNotifications.visible(link) == shown)
        #expect(
            DesktopNotifications.body(uri: link, rule: "links", reader: "r", markup: false)
                == "Reader r, rule links:\n\(shown)")
    }
}
