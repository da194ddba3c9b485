import BundleFormat
import FleetBundle
public import Foundation
import TagRules

/// `tagrouter bundle keygen`, `pack` and `verify` (docs/fleet.md): the administrator's side of signed bundles.
public enum BundleCommands {
    /// `tagrouter bundle keygen --out NAME`: a new signing key, `NAME.key` (mode 0600) and `NAME.pub`.
    /// - Parameter name: the files' path without extension.
    /// - Returns: the two paths and the key's identifier; status 1 when a file exists or cannot be written.
    public static func keygen(out name: String) -> CommandOutput {
        let key = BundleSigningKey()
        let privatePath = name + ".key"
        let publicPath = name + ".pub"
        for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: path) {
            return .failure("\(path) exists; a key is never overwritten (remove it first, or choose another --out)")
        }
        do {
            try BundleFolder.writeFile(Data(key.fileText.utf8), to: privatePath, mode: 0o600)
            try BundleFolder.writeFile(Data(key.publicKey.fileText.utf8), to: publicPath, mode: 0o644)
        } catch {
            unlink(privatePath)
            return .failure(error.message)
        }
        return .lines([
            "private key \(privatePath) (keep it off the routers)",
            "public key \(publicPath) (key \(key.publicKey.id): give it to each router with --bundle-key)",
        ])
    }

    /// `tagrouter bundle pack --key NAME.key --version N --out FILE DIR`: checks the folder as `tagrouter check`
    /// does and refuses on any error, then packs and signs it.
    /// - Parameters:
    ///   - keyPath: the private key file.
    ///   - version: the bundle's version.
    ///   - output: the bundle file to write (replaced if it exists).
    ///   - directory: the rules folder.
    ///   - environment: the variables `${NAME}` in the rules may name while checking.
    ///   - now: the creation time written in the manifest.
    /// - Returns: a summary line; status 1 with `check`'s report when the folder has an error, or the reason the
    ///   bundle cannot be made.
    public static func pack(
        key keyPath: String, version: PositiveCount, out output: String, directory: String,
        environment: [String: String] = HostDefaults.environment, now: Date = Date()
    ) -> CommandOutput {
        let loaded = RuleSet.load(sources: [directory], environment: environment)
        let report = CheckReport(loaded)
        guard report.succeeded else {
            return CommandOutput(
                standardOutput: report.text + "\n", errors: ["\(directory): not packed, the rules have errors"],
                status: 1)
        }
        do {
            let key = try BundleSigningKey(contentsOf: keyPath)
            let entries = try BundleFolder.read(directory)
            let bundle = try SignedBundle(packing: entries, version: version.value, created: now, key: key)
            try BundleFolder.replaceFile(bundle.data, at: output, mode: 0o644)
            let warnings = report.diagnostics.map(\.description)
            return .lines(
                warnings + [
                    "\(output): bundle version \(bundle.version), \(entries.count) file\(entries.count == 1 ? "" : "s"), "
                        + "sha256 \(bundle.digest), signed by key \(bundle.signer)"
                ])
        } catch {
            return .failure(error.message)
        }
    }

    /// `tagrouter bundle verify --key NAME.pub FILE`: whether a bundle file verifies against the keys, and what
    /// it holds.
    /// - Parameters:
    ///   - keys: the public key files trusted.
    ///   - file: the bundle file.
    /// - Returns: the version, creation time, digest, signer and files; status 1 with the reason it is refused.
    public static func verify(keys: [String], file: String) -> CommandOutput {
        do throws(BundleError) {
            let trusted = try keys.map { (path) throws(BundleError) in try BundlePublicKey(contentsOf: path) }
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            if let size = attributes?[.size] as? Int, size > BundleLayout.maximumSize {
                throw BundleError(.tooLarge, "\(file): \(size) bytes, more than a bundle may take")
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw BundleError(.io, "\(file): cannot read the file")
            }
            let bundle = try SignedBundle(verifying: data, name: file, trustedKeys: trusted)
            var lines = [
                "\(file): verified, bundle version \(bundle.version), created \(BundleManifest.timeText(bundle.manifest.created)), "
                    + "signed by key \(bundle.signer)",
                "sha256 \(bundle.digest)",
            ]
            lines += bundle.manifest.files.map { "  \($0.path)  \($0.size) bytes  sha256 \($0.sha256)" }
            return .lines(lines)
        } catch {
            return .failure(error.message)
        }
    }
}
