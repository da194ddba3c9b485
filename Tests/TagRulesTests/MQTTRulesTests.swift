import Foundation
import TagRules
import Testing

/// The `mqtt:` block and the `mqtt` action: parsing, every configuration error at file:line:col, topics that
/// placeholders cannot widen, and rendering (docs/rules.md, "`mqtt:`: the broker", "`mqtt`: publications").
@Suite struct MQTTRulesTests {
    static let broker = """
        mqtt:
          url: "mqtt://broker.example"
          clientId: front-door

        """

    static func file(_ mqtt: String = broker, action: String = "    mqtt: {}\n") -> String {
        "version: 1\n" + mqtt + "rules:\n  - name: r\n    match: {any: true}\n" + action
    }

    typealias Case = DiagnosticCase

    static let errors: [Case] = [
        Case(
            name: "another scheme", yaml: file("mqtt:\n  url: 'http://broker'\n"),
            expected: ["f.yaml:3:8: error: broker url 'http://broker' is not mqtt:// or mqtts:// (scheme 'http')"]),
        Case(
            name: "a path", yaml: file("mqtt:\n  url: 'mqtt://broker/x'\n"),
            expected: [
                "f.yaml:3:8: error: broker url 'mqtt://broker/x' has a path, query or fragment (write mqtt://host:port)"
            ]),
        Case(
            name: "a query", yaml: file("mqtt:\n  url: 'mqtt://broker?x=1'\n"),
            expected: [
                "f.yaml:3:8: error: broker url 'mqtt://broker?x=1' has a path, query or fragment (write mqtt://host:port)"
            ]),
        Case(
            name: "credentials in the url", yaml: file("mqtt:\n  url: 'mqtt://u:p@broker'\n"),
            expected: [
                "f.yaml:3:8: error: broker url 'mqtt://broker' has credentials before '@': put them in 'username' and 'password'"
            ]),
        Case(
            name: "a bad port", yaml: file("mqtt:\n  url: 'mqtt://broker:70000'\n"),
            expected: ["f.yaml:3:8: error: broker url 'mqtt://broker:70000' has an invalid port '70000'"]),
        Case(
            name: "no url", yaml: file("mqtt:\n  clientId: x\n"),
            expected: ["f.yaml:3:3: error: 'mqtt' has no 'url' (write url: \"mqtt://broker.example:1883\")"]),
        Case(
            name: "an unknown key", yaml: file("mqtt:\n  url: 'mqtt://b'\n  keepalive: 10s\n"),
            expected: ["f.yaml:4:3: error: unknown key 'keepalive' in 'mqtt' (did you mean 'keepAlive'?)"]),
        Case(
            name: "tls with mqtt://", yaml: file("mqtt:\n  url: 'mqtt://b'\n  tls: {ca: /etc/ca.pem}\n"),
            expected: ["f.yaml:4:3: error: 'tls' needs an mqtts:// url (the url is 'mqtt://b')"]),
        Case(
            name: "a client certificate without its key",
            yaml: file("mqtt:\n  url: 'mqtts://b'\n  tls: {cert: /etc/c.pem}\n"),
            expected: ["f.yaml:4:8: error: 'tls' needs both 'cert' and 'key' for a client certificate"]),
        Case(
            name: "a client id with a slash", yaml: file("mqtt:\n  url: 'mqtt://b'\n  clientId: 'a/b'\n"),
            expected: ["f.yaml:4:13: error: clientId 'a/b' must be 1 to 64 letters, digits, '-', '_' or '.'"]),
        Case(
            name: "a topic prefix with a wildcard", yaml: file("mqtt:\n  url: 'mqtt://b'\n  topicPrefix: 'a/+'\n"),
            expected: ["f.yaml:4:16: error: topicPrefix 'a/+' contains a wildcard ('+' or '#')"]),
        Case(
            name: "a short keep-alive", yaml: file("mqtt:\n  url: 'mqtt://b'\n  keepAlive: 1s\n"),
            expected: ["f.yaml:4:14: error: keepAlive must be between 5s and 65535s"]),
        Case(
            name: "qos 2", yaml: file(action: "    mqtt: {qos: 2}\n"),
            expected: ["f.yaml:8:17: error: 'qos' must be 0 or 1, not '2'"]),
        Case(
            name: "a topic with +", yaml: file(action: "    mqtt: {topic: 'site/+/open'}\n"),
            expected: ["f.yaml:8:19: error: topic 'site/+/open' contains a wildcard ('+' or '#')"]),
        Case(
            name: "a topic with #", yaml: file(action: "    mqtt: {topic: 'site/#'}\n"),
            expected: ["f.yaml:8:19: error: topic 'site/#' contains a wildcard ('+' or '#')"]),
        Case(
            name: "a topic starting with an empty level", yaml: file(action: "    mqtt: {topic: '/site/{reader}'}\n"),
            expected: ["f.yaml:8:19: error: topic '/site/{reader}' starts with an empty level ('/')"]),
        Case(
            name: "a topic with NUL", yaml: file(action: "    mqtt: {topic: \"site/\\0\"}\n"),
            expected: ["f.yaml:8:19: error: topic 'site/\u{0}' contains a NUL character"]),
        Case(
            name: "an empty topic", yaml: file(action: "    mqtt: {topic: ''}\n"),
            expected: ["f.yaml:8:19: error: topic '' is empty"]),
        Case(
            name: "an unknown action key", yaml: file(action: "    mqtt: {topik: x}\n"),
            expected: ["f.yaml:8:12: error: unknown key 'topik' in 'mqtt' in rule 'r' (did you mean 'topic'?)"]),
        Case(
            name: "an mqtt action without a broker", yaml: file("", action: "    mqtt: {}\n"),
            expected: [
                "f.yaml:5:11: error: an 'mqtt' action in rule 'r' needs an 'mqtt:' block with the broker's url (none in the rule set)"
            ]),
        Case(
            name: "retryFor with qos 0", yaml: file(action: "    mqtt: {qos: 0, retryFor: 1h}\n"),
            expected: ["f.yaml:8:30: warning: 'retryFor' has no effect with qos 0 (QoS 0 is never stored or retried)"]),
    ]

    @Test(arguments: errors)
    func configurationErrorsAreReportedAtTheirPlace(fact: Case) {
        let result = RuleSet.load(files: [("f.yaml", fact.yaml)], environment: [:])
        #expect(result.diagnostics.map(\.headline) == fact.expected)
        #expect((result.ruleSet == nil) == fact.expected.contains { $0.contains(": error: ") })
    }

    @Test func aSecondBlockIsAnErrorNamingTheFirst() {
        let result = RuleSet.load(
            files: [("a.yaml", Self.file()), ("b.yaml", "version: 1\nmqtt:\n  url: 'mqtt://other'\nrules: []\n")],
            environment: [:])
        #expect(
            result.diagnostics.map(\.headline) == [
                "b.yaml:2:1: error: a second 'mqtt' block (a rule set has one broker; the first is at a.yaml:2:1)"
            ])
    }

    @Test func theBlockMayComeInALaterFileAndDefaultTopicsUseItsPrefix() throws {
        let rules = "version: 1\nrules:\n  - name: r\n    match: {any: true}\n    mqtt: {}\n"
        let broker =
            "version: 1\nmqtt: {url: 'mqtts://b.example:9883', clientId: hall, topicPrefix: site/hall}\nrules: []\n"
        let set = try RuleSet.load(files: [("a.yaml", rules), ("b.yaml", broker)], environment: [:]).get()
        let settings = try #require(set.mqtt)
        #expect(settings.host == "b.example")
        #expect(settings.port == 9883)
        #expect(settings.usesTLS)
        #expect(settings.topicPrefix == "site/hall")
        let actions = try set.rules[0].render(
            event: RuleFixture.event(uri: nil, uid: "04A1", reader: "ACS ACR122U PICC Interface 00 00"), eventID: "e",
            time: "t")
        #expect(
            actions == [
                .mqtt(
                    RenderedMQTT(
                        topic: "site/hall/acs_acr122u_picc_interface_00_00/tag", payload: nil, qos: 1, retain: false,
                        retryFor: .seconds(86_400)))
            ])
    }

    @Test func defaultsAndSecrets() throws {
        let text = """
            version: 1
            mqtt:
              url: "mqtt://127.0.0.1"
              username: "${MQTT_USER:-}"
              password: "${MQTT_PASSWORD}"
              homeAssistant: true
            rules: []

            """
        let set = try RuleSet.load(files: [("f.yaml", text)], environment: ["MQTT_PASSWORD": "pw-9f3a"]).get()
        let settings = try #require(set.mqtt)
        #expect(settings.port == 1883)
        #expect(!settings.usesTLS)
        #expect(settings.username == nil)
        #expect(settings.password == "pw-9f3a")
        #expect(!"\(settings)".contains("pw-9f3a") && !String(reflecting: settings).contains("pw-9f3a"))
        #expect(settings.clientID.hasPrefix("tagrouter-"))
        #expect(settings.topicPrefix == "tagrouter/" + settings.clientID)
        #expect(settings.discoveryPrefix == "homeassistant")
        #expect(settings.keepAlive == .seconds(30))
        #expect(settings.statusTopic == settings.topicPrefix + "/status")
        let custom = try RuleSet.load(
            files: [
                ("f.yaml", "version: 1\nmqtt: {url: 'mqtts://h', homeAssistant: {discoveryPrefix: ha}}\nrules: []\n")
            ],
            environment: [:]
        ).get()
        #expect(custom.mqtt?.discoveryPrefix == "ha")
        #expect(custom.mqtt?.port == 8883)
    }

    @Test(arguments: [
        ("ACS ACR122U PICC Interface 00 00", "acs_acr122u_picc_interface_00_00"),
        ("Virtual PCD 00 00", "virtual_pcd_00_00"),
        ("  --Ünïcode//Reader++ 1 ", "n_code_reader_1"),
        ("///", "reader"),
    ])
    func readerIDs(name: String, id: String) {
        #expect(MQTTTopic.readerID(name) == id)
    }

    @Test func placeholdersCannotAddTopicLevelsOrWildcards() throws {
        let action = """
                mqtt:
                  topic: "site/{reader}/{query.door}"
                  payload: '{"uid": "{uid}", "door": "{query.door}"}'
                  qos: 0
                  retain: true

            """
        let set = try RuleSet.load(files: [("f.yaml", Self.file(action: action))], environment: [:]).get()
        let event = RuleFixture.event(
            uri: "https://e.example/?door=a%2Fb%2B%23c%00%22", uid: "04A1", reader: "hall/+#")
        let actions = try set.rules[0].render(event: event, eventID: "e", time: "t")
        #expect(
            actions == [
                .mqtt(
                    RenderedMQTT(
                        topic: "site/hall___/a_b__c_\"",
                        payload: #"{"uid": "04A1", "door": "a/b+#c\u0000\""}"#, qos: 0, retain: true,
                        retryFor: .seconds(86_400)))
            ])
    }

    /// Issue 29: tag data in a topic level cannot carry control characters, nor start a level with `$` (the
    /// broker's `$SYS`-style topics); a `$` inside a level stays.
    @Test func placeholdersCannotAddControlCharactersOrADollarLevel() throws {
        let action = "    mqtt: {topic: '{text}/x/{query.a}-{query.b}/{query.b}'}\n"
        let set = try RuleSet.load(files: [("f.yaml", Self.file(action: action))], environment: [:]).get()
        let event = RuleFixture.event(
            uri: "https://e.example/?a=%7F%1B&b=%24x", texts: ["$SYS\u{1}\r\n\u{85}y"])
        let actions = try set.rules[0].render(event: event, eventID: "e", time: "t")
        guard case .mqtt(let mqtt) = actions.first else {
            Issue.record("not an mqtt action: \(actions)")
            return
        }
        #expect(mqtt.topic == "_SYS____y/x/__-$x/_x")
    }

    /// Issue 29: a password over plain `mqtt://` to another machine is a warning at the password; over
    /// `mqtts://`, or to this machine, it is not.
    @Test(arguments: [
        (
            "mqtt://broker.example",
            ["f.yaml:4:13: warning: the MQTT password goes over plain mqtt://, readable on the network (use mqtts://)"]
        ),
        ("mqtts://broker.example", []),
        ("mqtt://127.0.0.1:1884", []),
        ("mqtt://localhost", []),
    ])
    func aPasswordOverPlainMQTTIsAWarning(url: String, expected: [String]) throws {
        let mqtt = "mqtt:\n  url: '\(url)'\n  password: '${PW}'\n"
        let result = RuleSet.load(files: [("f.yaml", Self.file(mqtt))], environment: ["PW": "hunter2"])
        #expect(result.diagnostics.map(\.headline) == expected)
        #expect(result.ruleSet != nil)
    }

    @Test func aPlainPayloadIsNotJSONEscaped() throws {
        let set = try RuleSet.load(
            files: [("f.yaml", Self.file(action: "    mqtt: {payload: 'tag {text}'}\n"))], environment: [:]
        ).get()
        let actions = try set.rules[0].render(
            event: RuleFixture.event(uri: nil, texts: ["say \"hi\""]), eventID: "e", time: "t")
        guard case .mqtt(let mqtt) = actions.first else {
            Issue.record("not an mqtt action: \(actions)")
            return
        }
        #expect(mqtt.payload == "tag say \"hi\"")
    }

    @Test func matchShowsTopicQoSAndPayloadWithSecretsMasked() throws {
        let action = "    mqtt: {topic: 'doors/{uid}', payload: '{\"token\": \"${TOKEN}\", \"id\": \"{ha_tag_id}\"}'}\n"
        let set = try RuleSet.load(files: [("f.yaml", Self.file(action: action))], environment: ["TOKEN": "t0k3n"])
            .get()
        let report = MatchReport(
            event: RuleFixture.event(uri: nil, uid: "04A1B2"), ruleSet: set, explaining: false, eventID: "e", time: "t")
        #expect(
            report.text == """
                matched: r
                  r: mqtt doors/04A1B2 qos 1 retry for 1d
                      payload: {"token": "${TOKEN}", "id": "04-A1-B2"}
                """)
        #expect(report.json.contains(#""kind":"mqtt","payload":"{\"token\": \"${TOKEN}\", \"id\": \"04-A1-B2\"}""#))
        #expect(report.json.contains(#""qos":1"#))
        #expect(!report.json.contains("t0k3n"))
    }
}

/// The Home Assistant MQTT example of contrib/home-assistant loads, with its defaults.
@Test func theHomeAssistantMQTTExampleLoads() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("contrib/home-assistant/mqtt-rules.yaml").path
    let set = try RuleSet.load(sources: [path], environment: ["MQTT_USER": "u", "MQTT_PASSWORD": "p"]).get()
    let settings = try #require(set.mqtt)
    #expect(settings.host == "homeassistant.local")
    #expect(settings.clientID == "kitchen")
    #expect(settings.topicPrefix == "tagrouter/kitchen")
    #expect(settings.discoveryPrefix == "homeassistant")
}

/// `tagrouter check` names the broker (secrets masked) after the counts.
@Test func checkNamesTheBroker() {
    let text = "version: 1\nmqtt: {url: 'mqtt://${HOST}:1884', clientId: hall}\nrules: []\n"
    let report = CheckReport(RuleSet.load(files: [("f.yaml", text)], environment: ["HOST": "secret-host"]))
    #expect(report.text == "0 rules in 1 file\nMQTT broker mqtt://${HOST}:1884 as client hall")
    #expect(report.json.contains(#""mqtt":"mqtt://${HOST}:1884 as client hall""#))
}
