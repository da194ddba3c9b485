import Foundation
import TagRules
import Testing

private let time = "2026-11-28T12:00:00.125Z"

private func render(
    _ action: String, uri: String? = "https://e.com/a%20b?q=caf%C3%A9&q=2&x=1#frag", uid: String? = "04A1B2C3D4E580",
    texts: [String] = ["hello \"world\""], environment: [String: String] = [:], masks: Bool = false
) throws -> [RenderedAction] {
    let yaml = "version: 1\nrules:\n  - name: r\n    match: {any: true}\n" + action
    let ruleSet = try RuleSet.load(files: [("f.yaml", yaml)], environment: environment).get()
    let event = TagEvent(uid: uid, reader: "Desk; rm -rf /", tech: "type2", uri: uri, texts: texts)
    return try ruleSet.rules[0].render(event: event, eventID: "e-1", time: time, masksSecrets: masks)
}

@Test(
    arguments: [
        ("{uri}", "https://e.com/a%20b?q=caf%C3%A9&q=2&x=1#frag"),
        ("{scheme}|{host}|{path}|{query}|{fragment}", "https|e.com|/a%20b|q=caf%C3%A9&q=2&x=1|frag"),
        ("{query.q}|{query.x}|{query.none}", "café|1|"),
        ("{uid}|{reader}|{tech}|{rule}|{text}", "04A1B2C3D4E580|Desk; rm -rf /|type2|r|hello \"world\""),
        ("{event_id} {time}", "e-1 2026-11-28T12:00:00.125Z"),
        ("{{uid}} {{{uid}}}", "{uid} {04A1B2C3D4E580}"),
        ("{\"a\": 1}", "{\"a\": 1}"),
        ("{ha_tag_id}", "04-A1-B2-C3-D4-E5-80"),
    ] as [(String, String)])
func placeholdersInRunArguments(template: String, expected: String) throws {
    let quoted = "'" + template.replacingOccurrences(of: "'", with: "''") + "'"
    let actions = try render("    run: [/bin/echo, \(quoted)]\n")
    guard case .run(let argv, _, _, _) = actions.first else { Issue.record("not a run action"); return }
    #expect(argv == ["/bin/echo", expected])
}

@Test func homeAssistantTagIDFromItsURI() throws {
    let actions = try render("    open: '{ha_tag_id}'\n", uri: "https://www.home-assistant.io/tag/a1b2-c3")
    #expect(actions == [.open(uri: "a1b2-c3")])
}

@Test func hostileValuesStayOneArgument() throws {
    let uri = "https://e.com/;%20rm%20-rf%20/$(reboot)`id`'\""
    let actions = try render("    run: [/usr/bin/printf, '%s', '{uri}']\n", uri: uri)
    guard case .run(let argv, let environment, _, let timeout) = actions.first else { return }
    #expect(argv == ["/usr/bin/printf", "%s", uri])
    #expect(environment["TAG_URI"] == uri)
    #expect(environment["TAG_READER"] == "Desk; rm -rf /")
    #expect(timeout == .seconds(10))
}

@Test func aNULInTheTagsTextEmptiesTAG_TEXTInsteadOfFailingTheCommand() throws {
    let actions = try render("    run: [/bin/true]\n", texts: ["open\u{0}sesame"])
    guard case .run(_, let environment, _, _) = actions.first else {
        Issue.record("not a run action")
        return
    }
    #expect(environment["TAG_TEXT"] == "")
    #expect(environment["TAG_UID"] == "04A1B2C3D4E580")
}

@Test func webhookEscapingModes() throws {
    let action = """
            webhook:
              url: "https://hooks.example/t/{uid}?reader={reader}&text={text}"
              method: put
              headers: {X-Reader: "{reader}", Authorization: "Bearer ${TOKEN}"}
              body: '{"text": "{text}", "uri": "{uri}"}'
              secret: "${SIGN:-fallback}"
              timeout: 3s
              retryFor: 2h

        """
    let actions = try render(action, environment: ["TOKEN": "t0k3n"])
    let expected = RenderedWebhook(
        url: "https://hooks.example/t/04A1B2C3D4E580?reader=Desk%3B%20rm%20-rf%20%2F&text=hello%20%22world%22",
        method: "PUT",
        headers: [
            HeaderField(name: "X-Reader", value: "Desk; rm -rf /"),
            HeaderField(name: "Authorization", value: "Bearer t0k3n"),
        ],
        body: #"{"text": "hello \"world\"", "uri": "https://e.com/a%20b?q=caf%C3%A9&q=2&x=1#frag"}"#,
        secret: "fallback", timeout: .seconds(3), retryFor: .seconds(7200))
    #expect(actions == [.webhook(expected)])
}

@Test func plainBodyIsNotJSONEscaped() throws {
    let action = """
            webhook: {url: "https://h.example/", headers: {Content-Type: text/plain}, body: 'said {text}'}

        """
    guard case .webhook(let webhook) = try render(action).first else { return }
    #expect(webhook.body == "said hello \"world\"")
}

@Test func headerInjectionIsRefused() throws {
    let action = "    webhook: {url: 'https://h.example/', headers: {X-Text: '{text}'}}\n"
    #expect(throws: TagRulesError.self) { try render(action, texts: ["a\r\nX-Evil: 1"]) }
    do {
        _ = try render(action, texts: ["a\nb"])
    } catch let error as TagRulesError {
        #expect(error.code == .headerInjection)
        #expect(error.description == "placeholder {text} would put a line break into an HTTP header")
    }
}

@Test func secretsAreMaskedInHumanOutput() throws {
    let action = """
            webhook: {url: "${BASE}/api?t={uid}", headers: {Authorization: "Bearer ${TOKEN}"}, secret: "${KEY}"}

        """
    let environment = ["BASE": "https://ha.local", "TOKEN": "t0k3n", "KEY": "k3y"]
    guard case .webhook(let masked) = try render(action, environment: environment, masks: true).first else { return }
    #expect(masked.url == "${BASE}/api?t=04A1B2C3D4E580")
    #expect(masked.headers == [HeaderField(name: "Authorization", value: "Bearer ${TOKEN}")])
    #expect(masked.secret == "${KEY}")
    guard case .webhook(let real) = try render(action, environment: environment).first else { return }
    #expect(real.url == "https://ha.local/api?t=04A1B2C3D4E580")
    #expect(real.secret == "k3y")
}
