import Foundation
public import Logging
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
        store: RuleStore, pollInterval: Duration = .milliseconds(500), debounce: Duration = .milliseconds(300),
        logger: Logger
    ) {
        self.store = store
        self.pollInterval = pollInterval
        self.debounce = debounce
        self.logger = logger
    }

    /// Watches for SIGHUP and file changes until graceful shutdown or cancellation.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                for await _ in signals.cancelOnGracefulShutdown() {
                    logger.info("rules.reload_requested", metadata: ["reason": "SIGHUP"])
                    store.reload()
                }
            }
            group.addTask {
                try await pollFiles()
            }
        }
    }

    private func pollFiles() async throws {
        var seen = Self.fingerprint(of: store.sources)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try await Task.sleep(for: pollInterval)
            var now = Self.fingerprint(of: store.sources)
            guard now != seen else { continue }
            // Wait until the files stop changing, then reload once.
            while true {
                try await Task.sleep(for: debounce)
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
    static func fingerprint(of sources: [String]) -> [String] {
        let manager = FileManager.default
        var entries: [String] = []
        for source in sources {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: source, isDirectory: &isDirectory) else {
                entries.append("\(source) missing")
                continue
            }
            let files: [String]
            if isDirectory.boolValue {
                let names = (try? manager.contentsOfDirectory(atPath: source)) ?? []
                files = names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted().map {
                    source + "/" + $0
                }
            } else {
                files = [source]
            }
            for file in files {
                let attributes = (try? manager.attributesOfItem(atPath: file)) ?? [:]
                let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                entries.append("\(file) \(size) \(modified)")
            }
        }
        return entries
    }

    /// The service's name in lifecycle logs.
    public var description: String { "RulesReloader" }
}
