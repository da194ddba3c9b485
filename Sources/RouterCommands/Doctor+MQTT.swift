import TagActions
import TagRules

extension Doctor {
    /// Connects to the rules' MQTT broker once and reports reachability, TLS and authentication, with the fix.
    /// - Parameter settings: the `mqtt:` block.
    /// - Returns: the `mqtt` check.
    static func mqttCheck(_ settings: MQTTSettings) async -> DoctorCheck {
        mqttCheck(settings, probe: await MQTTProbe.run(settings))
    }

    /// The `mqtt` check for what the probe found.
    /// - Parameters:
    ///   - settings: the `mqtt:` block.
    ///   - probe: how the connection attempt ended.
    /// - Returns: the check, a warning when a password crossed the network in plain text.
    static func mqttCheck(_ settings: MQTTSettings, probe: MQTTProbe.Result) -> DoctorCheck {
        let broker = "\(settings.host):\(settings.port)\(settings.usesTLS ? " (TLS)" : "")"
        switch probe {
        case .connected:
            let user = settings.username.map { " as \($0)" } ?? ""
            let detail = "broker \(broker) accepted client \(settings.clientID)-doctor\(user)"
            if settings.sendsPasswordInPlainText {
                return DoctorCheck(
                    name: "mqtt", status: .warning,
                    detail: detail + ", but the password went over plain mqtt://, readable on the network",
                    fix: "use mqtts:// and the broker's TLS listener (8883)")
            }
            return DoctorCheck(name: "mqtt", status: .ok, detail: detail)
        case .refused(let code, let reason):
            let fix =
                code == 4 || code == 5
                ? "check username and password in the mqtt: block (and the environment variables they name) against the broker's password file and ACL"
                : "check clientId in the mqtt: block and the broker's settings"
            return DoctorCheck(
                name: "mqtt", status: .problem, detail: "broker \(broker) refused the connection: \(reason)", fix: fix)
        case .unreachable(let reason):
            let fix: String
            if reason.contains("certificate") || reason.contains("SSL") || reason.contains("TLS") {
                fix =
                    "the broker's certificate is not trusted or does not name \(settings.host): set tls.ca to the CA that signed it"
            } else if settings.usesTLS && reason.contains("protocol") {
                fix = "the port may not speak TLS: check mqtts:// and the port"
            } else {
                fix = "start the broker, or check the host and port of url in the mqtt: block and the firewall"
            }
            return DoctorCheck(
                name: "mqtt", status: .problem, detail: "cannot connect to \(broker): \(reason)", fix: fix)
        case .invalidSettings(let reason):
            return DoctorCheck(
                name: "mqtt", status: .problem, detail: "cannot set up the connection: \(reason)",
                fix: "check the files of tls in the mqtt: block")
        case .timedOut:
            return DoctorCheck(
                name: "mqtt", status: .problem, detail: "no answer from \(broker) within 5 s",
                fix: "check the host and port of url in the mqtt: block, and that the port is an MQTT listener")
        }
    }
}
