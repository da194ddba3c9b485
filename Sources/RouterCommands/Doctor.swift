import Foundation
public import Logging
import NFCTag
import PCSC
import TagRouterCore
import TagRules

/// `tagrouter doctor`: checks what TagRouter needs, each with the fix (docs/cli.md, "tagrouter doctor"; docs/operations.md).
public enum Doctor {
    /// Runs every check.
    /// - Parameters:
    ///   - rulesSources: the rules to validate.
    ///   - stateDirectory: the state directory to try.
    ///   - environment: the process environment (`PATH`, `${VAR}` expansion, `PCSCLITE_CSOCK_NAME`).
    ///   - procModules: the text of `/proc/modules` (empty when unreadable).
    ///   - logger: passed to pcsc-lite.
    /// - Returns: the checks in a fixed order.
    public static func run(
        rulesSources: [String], stateDirectory: String, environment: [String: String], procModules: String,
        logger: Logger
    ) async -> [DoctorCheck] {
        var checks = await pcscChecks(environment: environment, logger: logger)
        checks.append(HostChecks.kernelModules(procModules: procModules))
        let loaded = RuleSet.load(sources: rulesSources, environment: environment)
        let sources = rulesSources.joined(separator: ", ")
        if let ruleSet = loaded.ruleSet {
            checks.append(
                DoctorCheck(
                    name: "rules", status: .ok,
                    detail: "\(loaded.ruleCount) rules in \(loaded.fileCount) files"
                        + (ruleSet.tags.entries.isEmpty ? "" : ", \(ruleSet.tags.entries.count) enrolled tags")
                        + " (\(sources))"))
            checks += randomIDChecks(ruleSet.tags)
            let needsOpener = ruleSet.rules.contains { $0.actions.contains(where: \.isOpen) }
            checks.append(HostChecks.opener(path: environment["PATH"] ?? "", needed: needsOpener))
            let asks = ruleSet.rules.contains { rule in rule.confirm != .never && rule.actions.contains(where: \.isOpen)
            }
            if asks {
                let reason = DesktopNotifications.unavailability()
                checks.append(
                    DoctorCheck(
                        name: "confirmations", status: reason == nil ? .ok : .warning,
                        detail: reason.map {
                            "an open that asks first will not open: \($0); run the router in the desktop session "
                                + "(the user unit) with a notification server, or write confirm: never"
                        } ?? "the desktop's notification server can ask before a tag opens a link"))
            }
            checks += AssociationCommands.doctorChecks(for: ruleSet, stateDirectory: stateDirectory)
            if let mqtt = ruleSet.mqtt { checks.append(await mqttCheck(mqtt)) }
        } else {
            let errors = loaded.diagnostics.filter { $0.severity == .error }
            checks.append(
                DoctorCheck(
                    name: "rules", status: .problem,
                    detail:
                        "\(errors.count) error\(errors.count == 1 ? "" : "s") in \(sources): \(errors.first?.headline ?? "")",
                    fix: "run `tagrouter check \(sources)` for every diagnostic"))
        }
        checks.append(HostChecks.stateDirectory(stateDirectory))
        checks += corruptDatabaseChecks(stateDirectory: stateDirectory)
        return checks
    }

    /// pcscd reachable, access granted, readers visible and which of them read tags.
    static func pcscChecks(environment: [String: String], logger: Logger) async -> [DoctorCheck] {
        let socket = environment["PCSCLITE_CSOCK_NAME"] ?? "/run/pcscd/pcscd.comm"
        do {
            return try await PCSCContext.withContext(logger: logger) { context in
                var checks = [DoctorCheck(name: "pcscd", status: .ok, detail: "reachable at \(socket)")]
                do {
                    let readers = try await context.readers()
                    if readers.isEmpty {
                        checks.append(
                            DoctorCheck(
                                name: "readers", status: .problem, detail: "pcscd sees no reader",
                                fix:
                                    "plug the reader in; if it is an ACR122U and pcscd logs LIBUSB_ERROR_BUSY, blacklist pn533 "
                                    + "(contrib/modprobe)"))
                    } else {
                        let statuses = (try? await context.status(of: readers)) ?? []
                        for reader in readers {
                            checks.append(describe(reader: reader, status: statuses.first { $0.reader == reader }))
                            checks.append(
                                feedback(reader: reader, await ReaderSupport.probe(reader: reader, context: context)))
                        }
                        if let present = statuses.first(where: \.isCardPresent) {
                            checks.append(await cardAccess(reader: present.reader, context: context))
                        }
                    }
                } catch let error as PCSCError where error.isAccessRefused {
                    checks.append(refused(error))
                } catch {
                    checks.append(
                        DoctorCheck(name: "readers", status: .problem, detail: "cannot list readers: \(error)"))
                }
                return checks
            }
        } catch let error as PCSCError where error.isAccessRefused {
            return [refused(error)]
        } catch {
            let socketExists = FileManager.default.fileExists(atPath: socket)
            return [
                DoctorCheck(
                    name: "pcscd", status: .problem,
                    detail: socketExists
                        ? "pcscd's socket \(socket) exists but refuses this client (\(error))"
                        : "pcscd is not running (no socket at \(socket)): \(error)",
                    fix: socketExists
                        ? "if pcscd uses polkit, install contrib/polkit/50-tagrouter.rules for this user"
                        : "sudo apt-get install pcscd && sudo systemctl enable --now pcscd.socket")
            ]
        }
    }

    /// One reader: contactless slot or SAM slot, and what is on it.
    static func describe(reader: String, status: ReaderStatus?) -> DoctorCheck {
        let isSAM = reader.uppercased().contains("SAM")
        var detail = isSAM ? "a SAM slot: it never sees tags" : "contactless slot"
        if let status, status.isCardPresent {
            let technology = ATRInfo(atr: status.atr).technology?.rawValue ?? "unknown card"
            detail += ", card present (\(technology))"
        } else {
            detail += ", empty"
        }
        return DoctorCheck(
            name: "reader \"\(reader)\"", status: isSAM ? .warning : .ok, detail: detail,
            fix: isSAM ? "use the PICC (contactless) reader of this device; `--reader PICC` keeps to it" : nil)
    }

    /// What a reader can show for a tap, and how it is reached (docs/tags.md, "Reader feedback"); a warning with
    /// the Info.plist line to change where libccid hides the escape command quiet mode needs.
    static func feedback(reader: String, _ support: ReaderSupport) -> DoctorCheck {
        DoctorCheck(
            name: "feedback \"\(reader)\"", status: support.lacksEscape ? .warning : .ok, detail: support.summary,
            fix: support.lacksEscape ? ReaderSupport.infoPlistAdvice : nil)
    }

    /// Whether this user may use a card (polkit's access_card), tried on a card that is present.
    static func cardAccess(reader: String, context: PCSCContext) async -> DoctorCheck {
        do {
            let connection = try await context.connect(to: reader)
            await connection.disconnect()
            return DoctorCheck(name: "card access", status: .ok, detail: "this user may use cards on \"\(reader)\"")
        } catch let error as PCSCError where error.isAccessRefused {
            return refused(error)
        } catch {
            return DoctorCheck(
                name: "card access", status: .warning,
                detail: "could not connect to the card on \"\(reader)\": \(error)")
        }
    }

    static func refused(_ error: PCSCError) -> DoctorCheck {
        DoctorCheck(
            name: "polkit", status: .problem, detail: "pcscd refused this user: \(error)",
            fix: "sudo install -m 0644 contrib/polkit/50-tagrouter.rules /etc/polkit-1/rules.d/ (set the user in it)")
    }

    /// The human report: one line per check, the fix indented under a problem.
    public static func text(_ checks: [DoctorCheck]) -> String {
        var lines: [String] = []
        for check in checks {
            let mark: String
            switch check.status {
            case .ok: mark = "ok     "
            case .warning: mark = "warning"
            case .problem: mark = "PROBLEM"
            }
            lines.append("\(mark)  \(check.name): \(check.detail)")
            if let fix = check.fix, check.status != .ok { lines.append("         fix: \(fix)") }
        }
        let problems = checks.filter { $0.status == .problem }.count
        lines.append(
            problems == 0
                ? "everything TagRouter needs is in place" : "\(problems) problem\(problems == 1 ? "" : "s") found")
        return lines.joined(separator: "\n")
    }
}
