import BundleFormat
public import FleetBundle
public import Foundation
public import Logging
import Synchronization
import TagRules

/// A host's bundles (docs/fleet.md): the one in force, kept in the state directory so that a restart without the
/// network runs it, and whether a new one is taken or refused, and why.
///
/// The state directory holds `bundle/current.trb` (the bundle file in force) and `bundle/rules-vN-DIGEST/` (its
/// files, unpacked); a bundle considered is unpacked into its own folder, checked together with the local overlay
/// (the `--rules` sources, first), then swapped in through ``RuleStore/replace(sources:)``.
public final class BundleKeeper: Sendable {
    /// A bundle in force.
    public struct InForce: Sendable, Equatable {
        /// Its version.
        public var version: Int
        /// The SHA-256 of its file.
        public var digest: String
        /// When it was packed.
        public var created: Date
        /// Where it was taken from: a source's URL, or the kept file when it was restored at start-up.
        public var source: String
    }

    /// A bundle refused, and why.
    public struct Refusal: Sendable, Equatable {
        /// Where it came from (a URL, or the state directory's copy at start-up).
        public var source: String
        /// Its version, when it was read that far.
        public var version: Int?
        /// The SHA-256 of its file.
        public var digest: String
        /// The reason as a word: `untrusted-key`, `signature`, `digest`, `older`, `check`, `format`, … (the codes
        /// of `BundleError`, and `older` and `check`).
        public var reason: String
        /// The sentence saying what is wrong and where (`check error at 10-door.yaml:3:7: …`).
        public var message: String
        /// When it was refused.
        public var time: Date
    }

    /// What became of a bundle considered.
    public enum Verdict: Sendable, Equatable {
        /// Taken: its rules are in force.
        case accepted(InForce)
        /// The bundle in force, fetched again: nothing to do.
        case unchanged
        /// Refused: nothing changed.
        case refused(Refusal)
    }

    let directory: String
    let overlay: [String]
    let trustedKeys: [BundlePublicKey]
    let logger: Logger
    let metrics: RouterMetrics?
    /// Whether an older bundle may replace a newer one (`--bundle-allow-rollback`; docs/fleet.md, "Rollback").
    let allowsRollback: Bool
    /// Called after a bundle is taken or refused (the status document is published again).
    private let observer = Mutex<@Sendable () -> Void>({})
    private let state: Mutex<(inForce: InForce?, refused: Refusal?, folder: String?)>
    /// Held while a bundle is considered: two sources answering at once are taken one after the other.
    private let considering = Mutex(())

    /// The file the bundle in force is kept in.
    var currentFile: String { directory + "/current.trb" }

    /// Creates the keeper.
    /// - Parameters:
    ///   - stateDirectory: the state directory; bundles are kept in its `bundle` folder.
    ///   - overlay: the `--rules` sources, the host's local overlay.
    ///   - trustedKeys: the public keys a bundle must be signed with.
    ///   - logger: where bundles taken and refused are logged.
    ///   - metrics: where the version in force and the refusals are counted, if anywhere.
    ///   - allowsRollback: whether a bundle older than the one in force may be taken (off by default).
    public init(
        stateDirectory: String, overlay: [String], trustedKeys: [BundlePublicKey], logger: Logger,
        metrics: RouterMetrics? = nil, allowsRollback: Bool = false
    ) {
        self.metrics = metrics
        self.allowsRollback = allowsRollback
        self.directory = stateDirectory + "/bundle"
        self.overlay = overlay
        self.trustedKeys = trustedKeys
        self.logger = logger
        self.state = Mutex((nil, nil, nil))
    }

    /// The bundle in force, if any.
    public var inForce: InForce? { state.withLock { $0.inForce } }
    /// The last bundle refused, if any.
    public var lastRefused: Refusal? { state.withLock { $0.refused } }

    /// Calls `body` after every bundle taken or refused from now on.
    /// - Parameter body: what to call (short; it runs on the thread that considered the bundle).
    public func observe(_ body: @escaping @Sendable () -> Void) {
        observer.withLock { $0 = body }
    }

    /// The sources to start with: the overlay, then the folder of the bundle kept in the state directory when it
    /// still verifies with the trusted keys (unpacked again if its folder is gone). A kept bundle that no longer
    /// verifies is logged and left out, and recorded as refused.
    /// - Returns: the sources.
    public func restore() -> [String] {
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard let data = FileManager.default.contents(atPath: currentFile) else { return overlay }
        do {
            let bundle = try SignedBundle(verifying: data, name: currentFile, trustedKeys: trustedKeys)
            let folder = self.folder(for: bundle)
            if !FileManager.default.fileExists(atPath: folder) { try BundleFolder.write(bundle.entries, to: folder) }
            let inForce = InForce(
                version: bundle.version, digest: bundle.digest, created: bundle.manifest.created, source: currentFile)
            state.withLock { $0 = (inForce, $0.refused, folder) }
            metrics?.bundleVersion(bundle.version)
            logger.info(
                "bundle.restored",
                metadata: ["bundle.version": "\(bundle.version)", "bundle.sha256": "\(bundle.digest)"])
            removeFolders(except: folder)
            return overlay + [folder]
        } catch {
            let refusal = Refusal(
                source: currentFile, version: nil, digest: "", reason: error.code.rawValue, message: error.message,
                time: Date())
            record(refusal)
            return overlay
        }
    }

    /// Considers a bundle: verifies it, refuses one not newer than the one in force, unpacks it and checks it with
    /// the overlay, then swaps it in and keeps it. A refused bundle changes nothing and is logged with its reason.
    /// - Parameters:
    ///   - data: the bundle file's bytes.
    ///   - source: where it came from, for logs.
    ///   - store: the rules in force.
    /// - Returns: what became of it.
    @discardableResult
    public func consider(_ data: Data, from source: String, store: RuleStore) -> Verdict {
        let verdict = considering.withLock { _ in considerAlone(data, from: source, store: store) }
        if verdict != .unchanged { observer.withLock { $0 }() }
        return verdict
    }

    private func considerAlone(_ data: Data, from source: String, store: RuleStore) -> Verdict {
        let digest = SignedBundle.digest(of: data)
        let current = inForce
        if digest == current?.digest { return .unchanged }
        func refuse(_ reason: String, _ message: String, version: Int? = nil) -> Verdict {
            let refusal = Refusal(
                source: source, version: version, digest: digest, reason: reason, message: message, time: Date())
            record(refusal)
            return .refused(refusal)
        }
        let bundle: SignedBundle
        do {
            bundle = try SignedBundle(verifying: data, name: source, trustedKeys: trustedKeys)
        } catch {
            return refuse(error.code.rawValue, error.message)
        }
        if let current, bundle.version <= current.version, !allowsRollback {
            return refuse(
                "older",
                "\(source): bundle version \(bundle.version) is not newer than version \(current.version) in force "
                    + "(no rollback)", version: bundle.version)
        }
        let folder = self.folder(for: bundle)
        try? FileManager.default.removeItem(atPath: folder)
        do {
            try BundleFolder.write(bundle.entries, to: folder)
        } catch {
            return refuse(error.code.rawValue, error.message, version: bundle.version)
        }
        // The bundle alone first, so that its own errors are named by its files; then with the overlay, swapped in
        // when it loads.
        func refuseCheck(_ result: LoadResult) -> Verdict {
            try? FileManager.default.removeItem(atPath: folder)
            let errors = result.diagnostics.filter { $0.severity == .error }
            let first = errors.first.map { describe($0, folder: folder) } ?? "the rules do not load"
            let more = errors.count > 1 ? " (and \(errors.count - 1) more)" : ""
            return refuse(
                "check", "\(source): bundle version \(bundle.version): check error at \(first)\(more)",
                version: bundle.version)
        }
        let alone = RuleSet.load(sources: [folder], environment: store.environment)
        guard alone.ruleSet != nil else { return refuseCheck(alone) }
        let together = store.replace(sources: overlay + [folder])
        guard together.ruleSet != nil else { return refuseCheck(together) }
        // In force now; kept so that a restart runs it.
        do {
            try BundleFolder.replaceFile(bundle.data, at: currentFile)
        } catch {
            logger.error(
                "bundle.not_kept: the bundle is in force but a restart would run the previous one",
                metadata: ["error": "\(error.message)"])
        }
        let taken = InForce(
            version: bundle.version, digest: bundle.digest, created: bundle.manifest.created, source: source)
        if let current, bundle.version <= current.version {
            logger.warning(
                "bundle.rolled_back: a bundle not newer than the one in force was taken (--bundle-allow-rollback)",
                metadata: ["bundle.version": "\(bundle.version)", "bundle.previous_version": "\(current.version)"])
        }
        state.withLock { $0 = (taken, $0.refused, folder) }
        metrics?.bundleVersion(bundle.version)
        removeFolders(except: folder)
        logger.info(
            "bundle.applied",
            metadata: [
                "bundle.version": "\(bundle.version)", "bundle.sha256": "\(bundle.digest)",
                "bundle.source": "\(source)", "rules.count": "\(store.ruleSet.rules.count)",
            ])
        return .accepted(taken)
    }

    /// A diagnostic as a refusal names it: `10-door.yaml:3:7: message`, the bundle's folder left out.
    func describe(_ diagnostic: Diagnostic, folder: String) -> String {
        var shown = diagnostic
        if shown.file.hasPrefix(folder + "/") { shown.file.removeFirst(folder.count + 1) }
        return shown.headline.replacingOccurrences(of: ": error: ", with: ": ")
    }

    private func record(_ refusal: Refusal) {
        state.withLock { $0.refused = refusal }
        metrics?.bundleRefused(refusal.reason)
        logger.error(
            "bundle.refused: the rules in force stay",
            metadata: [
                "bundle.source": "\(refusal.source)", "bundle.version": "\(refusal.version.map { "\($0)" } ?? "-")",
                "bundle.sha256": "\(refusal.digest)", "reason": "\(refusal.reason)", "error": "\(refusal.message)",
            ])
    }

    private func folder(for bundle: SignedBundle) -> String {
        directory + "/rules-v\(bundle.version)-\(bundle.shortDigest)"
    }

    /// Removes the folders of bundles no longer in force.
    private func removeFolders(except kept: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix("rules-v") && directory + "/" + name != kept {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}
