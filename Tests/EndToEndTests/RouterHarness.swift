import Foundation
import Logging
import NDEF
import TestSupport
import Testing
import VirtualTag

/// A running `tagrouter run` against a private pcscd, with a rules folder and an output file the rules'
/// commands append to.
struct RouterHarness {
    let pcscd: PrivatePCSCD
    let router: RouterProcess
    let directory: String
    /// The options and environment the router was started with, for ``startAnotherRouter(logName:)``.
    let routerArguments: [String]
    let routerEnvironment: [String: String]
    let logger = Logger(label: "test")

    /// What the router's own "reader added" line holds in the text log format; the watcher's debug line
    /// `pcsc.reader.added` does not match it.
    static let readerAdded = " info reader.added "

    var rulesDirectory: String { directory + "/rules" }
    var outputPath: String { directory + "/dispatched.txt" }

    /// Runs `body` with a router started on `rules` (YAML text; `OUT` is replaced by the output file path), with
    /// `files` (name: text) beside it in the rules folder.
    static func with(
        rules: String, arguments: [String] = [], environment: [String: String] = [:], waitForReaders: Bool = true,
        files: [String: String] = [:], _ body: (RouterHarness) async throws -> Void
    ) async throws {
        try await withPCSCD { pcscd in
            let directory = NSTemporaryDirectory() + "router-e2e-\(UUID().uuidString)"
            try FileManager.default.createDirectory(
                atPath: directory + "/rules", withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let output = directory + "/dispatched.txt"
            try rules.replacingOccurrences(of: "OUT", with: output)
                .write(toFile: directory + "/rules/10-test.yaml", atomically: true, encoding: .utf8)
            for (name, text) in files {
                try text.write(toFile: directory + "/rules/" + name, atomically: true, encoding: .utf8)
            }
            let routerArguments =
                ["--rules", directory + "/rules", "--state-dir", directory + "/state", "--log-level", "debug"]
                + arguments
            let routerEnvironment = pcscd.environment.merging(environment) { _, new in new }
            let router = try RouterProcess(
                arguments: routerArguments, environment: routerEnvironment, directory: directory)
            let harness = RouterHarness(
                pcscd: pcscd, router: router, directory: directory, routerArguments: routerArguments,
                routerEnvironment: routerEnvironment)
            if waitForReaders {
                try await router.waitForLog("watching 2 readers")
                let readerAdded = arguments.contains("json") ? #""message":"reader.added""# : Self.readerAdded
                try await router.waitForLog(readerAdded, count: 2)
            }
            do {
                try await body(harness)
            } catch {
                // Stop it the orderly way first, so it ends the commands it started.
                if router.isRunning { _ = try? await router.terminate() }
                throw error
            }
            if router.isRunning { try await router.terminate() }
        }
    }

    /// Starts another router with the same rules, state directory and options (after the first one was
    /// killed), logging to `logName`. The caller stops it.
    func startAnotherRouter(logName: String) throws -> RouterProcess {
        try RouterProcess(
            arguments: routerArguments, environment: routerEnvironment, directory: directory, logName: logName)
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
        return try present(card, slot: slot, answeringAtMost: limit)
    }

    /// Presents `card` on slot 0, waits for one more line in the output file, checks it is `line`, and takes the
    /// card away.
    func tap(_ card: some VirtualCard, expecting line: String) async throws {
        let count = dispatched.count
        let tag = try present(card)
        try await waitForDispatches(count + 1)
        #expect(dispatched.last == line, "\(dispatched)")
        try await remove(tag, slot: 0)
    }

    /// Presents any virtual card on a slot.
    func present(_ card: some VirtualCard, slot: Int = 0, answeringAtMost limit: Int? = nil) throws -> PresentedCard {
        try VirtualReader(port: pcscd.vpcdPort(slot: slot), logger: logger).present(card, answeringAtMost: limit)
    }

    /// The lines the rules' commands wrote so far.
    var dispatched: [String] {
        ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Removes a tag the router has seen and waits until pcscd and the router saw it go.
    ///
    /// vpcd cannot show a card swap faster than pcscd's polling: when a card leaves before pcscd's power-down
    /// after the read and another connects straight away, pcscd takes the new card for the old one, still
    /// present, and reports no event at all. A real reader reports the removal itself; here the next card must
    /// wait for this.
    func remove(_ tag: PresentedCard, slot: Int, router: RouterProcess? = nil) async throws {
        let router = router ?? self.router
        let marker = "pcsc.card.removed reader.name=\"\(pcscd.readerName(slot: slot))\""
        let before = router.lines(containing: marker).count
        await tag.remove()
        try await router.waitForLog(marker, count: before + 1)
    }

    /// Waits until the router's commands wrote a line containing `text`.
    func waitForDispatch(containing text: String, timeout: Duration = .seconds(10)) async throws {
        try await waitForDispatched("a dispatch containing '\(text)'", timeout: timeout) {
            $0.contains { $0.contains(text) }
        }
    }

    /// Waits until the commands wrote `count` lines.
    func waitForDispatches(_ count: Int, timeout: Duration = .seconds(10)) async throws {
        try await waitForDispatched("\(count) dispatches", timeout: timeout) { $0.count >= count }
    }

    /// Polls the dispatched lines until `done` holds; the error names `what` and shows the lines and the log.
    private func waitForDispatched(
        _ what: String, timeout: Duration, until done: ([String]) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !done(dispatched) {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("expected \(what) within \(timeout), saw \(dispatched):\n\(router.log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// An `on:` block (for `recordingRule`'s `extra`) that appends the tag's URI to OUT.removed at every `removed`,
/// 300 ms after the tag left; ``RouterHarness/removals`` reads them back.
let recordingRemovals =
    #"on: { removed: { after: 300ms, run: ["/bin/sh", "-c", "printf '%s\n' \"$1\" >> OUT.removed", "sh", "{uri}"] } }"#

extension RouterHarness {
    /// The URIs `recordingRemovals` wrote so far, in order.
    var removals: [String] {
        ((try? String(contentsOfFile: outputPath + ".removed", encoding: .utf8)) ?? "").split(separator: "\n")
            .map(String.init)
    }

    /// The removals once `count` were written (or 15 s passed) and a second more brought no other: a spurious one
    /// has time to show.
    func settledRemovals(expecting count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(15)
        while removals.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .seconds(1))
        return removals
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

extension Type4Card {
    /// What one read of the card returns, as a phone reading it once gets it: its NDEF message (an NTAG 424 DNA
    /// mirrors a fresh SUN message into it).
    func messageAsRead() -> [UInt8] {
        var card = self
        _ = card.respond(to: [0x00, 0xA4, 0x04, 0x00, 0x07] + Type4Card.applicationID(.v2) + [0x00])
        _ = card.respond(to: [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04])
        let file = card.respond(to: [0x00, 0xB0, 0x00, 0x00, 0xFF])
        let length = Int(file[0]) << 8 | Int(file[1])
        return Array(file[2..<(2 + length)])
    }
}
