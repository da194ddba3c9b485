import FileStatus
import Foundation
public import Logging
import PeriodicWork
public import ServiceLifecycle
import UnixSignals

/// Reloads the rules on SIGHUP and when a rules file changes (added, removed, edited), debounced so an editor's
/// several writes make one reload. Invalid rules keep the previous set in force (``RuleStore/reload()``).
public struct RulesReloader: Service, CustomStringConvertible {
    let store: RuleStore
    let pollInterval: Duration
    let debounce: Duration
    let logger: Logger

    /// Creates the reloader.
    /// - Parameters:
    ///   - store: the rules to reload.
    ///   - pollInterval: how often the files are looked at.
    ///   - debounce: how long the files must stay unchanged before a reload.
    ///   - logger: where reloads are logged.
    public init(
        store: RuleStore, pollInterval: Duration = .seconds(1), debounce: Duration = .milliseconds(300),
        logger: Logger
    ) {
        self.store = store
        self.pollInterval = pollInterval
        self.debounce = debounce
        self.logger = logger
    }

    /// Watches for SIGHUP and file changes until graceful shutdown or cancellation (which is not a failure: the
    /// group cancels what is left when its graceful-shutdown budget runs out).
    public func run() async {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in signals.cancelOnGracefulShutdown() {
                    logger.info("rules.reload_requested", metadata: ["reason": "SIGHUP"])
                    store.reload()
                }
            }
            group.addTask {
                await pollFiles()
            }
        }
    }

    private func pollFiles() async {
        var seen = Self.fingerprint(of: store.sources)
        logger.debug("rules.watching", metadata: ["rules.files": "\(seen.count)"])
        await Periodic.every(pollInterval) {
            var now = Self.fingerprint(of: store.sources)
            guard now != seen else { return }
            // Wait until the files stop changing, then reload once.
            while true {
                guard await Periodic.pause(for: debounce) else { return }
                let settled = Self.fingerprint(of: store.sources)
                if settled == now { break }
                now = settled
            }
            seen = now
            logger.info("rules.reload_requested", metadata: ["reason": "file changed"])
            store.reload()
        }
    }

    /// Path, size and modification time of every rules file the sources name (folders: their YAML files).
    ///
    /// Plain `stat(2)` and `readdir(3)`: this runs every poll for as long as the router lives, so it stays cheap.
    static func fingerprint(of sources: [String]) -> [String] {
        var entries: [String] = []
        for source in sources {
            guard let status = FileStatus.of(source) else {
                entries.append("\(source) missing")
                continue
            }
            guard status.kind == .directory else {
                entries.append(Self.entry(source, status))
                continue
            }
            guard let directory = opendir(source) else {
                entries.append("\(source) unreadable")
                continue
            }
            var names: [String] = []
            while let item = readdir(directory) {
                let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name.hasSuffix(".yaml") || name.hasSuffix(".yml") { names.append(name) }
            }
            closedir(directory)
            for name in names.sorted() {
                let file = source + "/" + name
                entries.append(FileStatus.of(file).map { Self.entry(file, $0) } ?? "\(file) missing")
            }
        }
        return entries
    }

    private static func entry(_ path: String, _ status: FileStatus) -> String {
        "\(path) \(status.size) \(status.modified.seconds).\(status.modified.nanoseconds) \(status.inode)"
    }

    /// The service's name in lifecycle logs.
    public var description: String { "RulesReloader" }
}
