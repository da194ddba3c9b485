import Foundation
import Hummingbird
import TagRules

extension WebConsole {
    struct ReaderRow {
        var name: String
        var state: String
        var lastTap: String
        var feedback: String
        var lastError: String
    }

    struct ReadersPage {
        var layout: Layout
        var readers: [ReaderRow]
    }

    struct MatchView {
        var uri: String
        var uid: String
        var reader: String
        var answer: String?
    }

    struct MatchQuery: Decodable {
        var uri: String?
        var uid: String?
        var reader: String?
        var explain: String?
    }

    struct RulesPage {
        var layout: Layout
        var files: [String]
        var check: String
        var hasErrors: Bool
        var match: MatchView
    }

    /// `GET /readers` and `GET /rules` (with the match tester's `?uri=&uid=&reader=`).
    func addInfoRoutes(to router: Router<ConsoleContext>) {
        router.get("/readers") { request, _ in
            try await self.page(request) { session in
                let rules = self.currentRules()
                let rows = self.feed.readers.map { reader in
                    ReaderRow(
                        name: DisplayText.visible(reader.name), state: PresenceRow(reader).state,
                        lastTap: reader.lastTap.map { tap in
                            let row = TapRow(tap)
                            return "\(row.time) \(row.tag) \(row.outcome)\(row.reason.map { " (\($0))" } ?? "")"
                        } ?? "none yet",
                        feedback: Self.feedback(rules.readerSettings(for: reader.name)),
                        lastError: reader.lastError.map { "\(TapRow($0).time): \(TapRow($0).detail)" } ?? "")
                }
                return self.render(
                    "readers",
                    ReadersPage(layout: self.layout("Readers", path: "/readers", session: session), readers: rows))
            }
        }
        router.get("/rules") { request, _ in
            try await self.page(request) { session in
                let query = Self.query(request, as: MatchQuery.self)
                let (check, hasErrors) = self.ruleTools.check()
                var match = MatchView(
                    uri: query?.uri ?? "", uid: query?.uid ?? "", reader: query?.reader ?? "console")
                if query?.explain != nil {
                    match.answer = self.ruleTools.explain(
                        uri: match.uri.isEmpty ? nil : match.uri, uid: match.uid.isEmpty ? nil : match.uid,
                        reader: match.reader.isEmpty ? "console" : match.reader)
                }
                return self.render(
                    "rules",
                    RulesPage(
                        layout: self.layout("Rules", path: "/rules", session: session),
                        files: self.currentRules().files.map(DisplayText.visible),
                        check: DisplayText.visible(check).replacingOccurrences(of: "\\u{000A}", with: "\n"),
                        hasErrors: hasErrors,
                        match: MatchView(
                            uri: match.uri, uid: match.uid, reader: match.reader,
                            answer: match.answer.map {
                                DisplayText.visible($0).replacingOccurrences(of: "\\u{000A}", with: "\n")
                            })))
            }
        }
    }

    /// What a reader shows for an outcome, from the rules' `readers:` block.
    static func feedback(_ settings: ReaderSettings?) -> String {
        guard let settings else { return "the reader family's defaults (no readers: entry names it)" }
        var parts = ["readers: entry at \(settings.location)"]
        if let family = settings.family { parts.append("family \(family)") }
        parts.append(settings.quiet ? "quiet: yes" : "quiet: no")
        return DisplayText.visible(parts.joined(separator: ", "))
    }
}
