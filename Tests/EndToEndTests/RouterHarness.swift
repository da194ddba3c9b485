import Foundation
import Logging
import NDEF
import TestSupport
import VirtualTag

/// A running `tagrouter run` against a private pcscd, with a rules folder and an output file the rules'
/// commands append to.
struct RouterHarness {
    let pcscd: PrivatePCSCD
    let router: RouterProcess
    let directory: String
    let logger = Logger(label: "test")

    var rulesDirectory: String { directory + "/rules" }
    var outputPath: String { directory + "/dispatched.txt" }

    /// Runs `body` with a router started on `rules` (YAML text; `OUT` is replaced by the output file path).
    static func with(
        rules: String, arguments: [String] = [], environment: [String: String] = [:], waitForReaders: Bool = true,
        _ body: (RouterHarness) async throws -> Void
    ) async throws {
        try await withPCSCD { pcscd in
            let directory = NSTemporaryDirectory() + "router-e2e-\(UUID().uuidString)"
            try FileManager.default.createDirectory(
                atPath: directory + "/rules", withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let output = directory + "/dispatched.txt"
            try rules.replacingOccurrences(of: "OUT", with: output)
                .write(toFile: directory + "/rules/10-test.yaml", atomically: true, encoding: .utf8)
            let router = try RouterProcess(
                arguments: [
                    "--rules", directory + "/rules", "--state-dir", directory + "/state", "--log-level", "debug",
                ]
                    + arguments,
                environment: pcscd.environment.merging(environment) { _, new in new }, directory: directory)
            let harness = RouterHarness(pcscd: pcscd, router: router, directory: directory)
            if waitForReaders {
                try await router.waitForLog("watching 2 readers")
                try await router.waitForLog("reader.added", count: 2)
            }
            try await body(harness)
            if router.isRunning { try await router.terminate() }
        }
    }

    /// A URI message.
    static func uriMessage(_ uri: String) throws -> [UInt8] {
        try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
    }

    /// Presents an NTAG213 holding `uri` on a slot.
    func present(
        uri: String, slot: Int = 0, uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80],
        answeringAtMost limit: Int? = nil
    ) throws -> PresentedCard {
        var options = Type2Card.Options(model: .ntag213)
        options.uid = uid
        let card = try Type2Card(model: .ntag213, message: try Self.uriMessage(uri), options: options)
        return try VirtualReader(port: pcscd.vpcdPort(slot: slot), logger: logger).present(card, answeringAtMost: limit)
    }

    /// The lines the rules' commands wrote so far.
    var dispatched: [String] {
        ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits until the commands wrote `count` lines.
    func waitForDispatches(_ count: Int, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while dispatched.count < count {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("expected \(count) dispatches, saw \(dispatched):\n\(router.log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A rule that appends one line to OUT per dispatch: `<marker>|<reader>|<uri>`.
func recordingRule(name: String, match: String, marker: String, extra: String = "") -> String {
    let run =
        #"run: ["/bin/sh", "-c", "printf '%s|%s|%s\n' \"$1\" \"$2\" \"$3\" >> OUT", "sh", "MARKER", "{reader}", "{uri}"]"#
    var text = "  - name: \(name)\n    match: \(match)\n"
    if !extra.isEmpty { text += "    \(extra)\n" }
    return text + "    " + run.replacingOccurrences(of: "MARKER", with: marker) + "\n"
}
