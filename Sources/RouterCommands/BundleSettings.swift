import BundleFormat
import FleetBundle
import Foundation
public import TagRouterCore

/// A host's bundle settings (docs/fleet.md, "Settings"): from `run`'s options, or else from the settings file's
/// variables (`/etc/tagrouter/env`, which the service reads): `TAGROUTER_BUNDLE_FROM` (URLs separated by spaces),
/// `TAGROUTER_BUNDLE_KEY` (public key files separated by spaces), `TAGROUTER_BUNDLE_POLL` (a duration of at least
/// 1s), `TAGROUTER_BUNDLE_CA` (a PEM file of extra trusted certificates), `TAGROUTER_BUNDLE_ALLOW_ROLLBACK` (`1`: an
/// older bundle may be taken), and `TAGROUTER_BUNDLE_MQTT_USERNAME` / `TAGROUTER_BUNDLE_MQTT_PASSWORD` (an MQTT
/// source's credentials).
public enum BundleSettings {
    /// Fills the bundle settings of `settings`: each option given wins over its variable.
    /// - Parameters:
    ///   - settings: the router's settings.
    ///   - options: the parsed options.
    ///   - environment: the process environment.
    /// - Throws: ``CommandFailure`` naming the option or variable that cannot be used, or the key file.
    public static func apply(to settings: inout RouterSettings, options: RunOptions, environment: [String: String])
        throws
    {
        func words(_ name: String) -> [String] {
            (environment[name] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        }
        do {
            settings.bundleSources = options.bundleFrom
            if options.bundleFrom.isEmpty {
                settings.bundleSources = try words("TAGROUTER_BUNDLE_FROM").map { (text) throws(BundleError) in
                    try BundleSource(text)
                }
            }
            let keyFiles = options.bundleKeys.isEmpty ? words("TAGROUTER_BUNDLE_KEY") : options.bundleKeys
            settings.bundleKeys = try keyFiles.map { (path) throws(BundleError) in try BundlePublicKey(contentsOf: path)
            }
        } catch {
            throw CommandFailure(error.message)
        }
        if let poll = options.bundlePoll {
            settings.bundlePoll = poll.duration
        } else if let text = environment["TAGROUTER_BUNDLE_POLL"], !text.isEmpty {
            guard let poll = BundlePollInterval(argument: text) else {
                throw CommandFailure("TAGROUTER_BUNDLE_POLL: '\(text)' is not a duration of at least 1s (60s, 5m)")
            }
            settings.bundlePoll = poll.duration
        }
        if let path = environment["TAGROUTER_BUNDLE_CA"], !path.isEmpty { settings.bundleTrustAnchors = path }
        switch environment["TAGROUTER_BUNDLE_ALLOW_ROLLBACK"] ?? "" {
        case "", "0": settings.bundleAllowsRollback = options.bundleAllowRollback
        case "1": settings.bundleAllowsRollback = true
        case let text:
            throw CommandFailure("TAGROUTER_BUNDLE_ALLOW_ROLLBACK: '\(text)' is neither 1 nor 0")
        }
        settings.bundleCredentials = BundleSource.Credentials(
            username: environment["TAGROUTER_BUNDLE_MQTT_USERNAME"].flatMap { $0.isEmpty ? nil : $0 },
            password: environment["TAGROUTER_BUNDLE_MQTT_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 })
        if !settings.bundleSources.isEmpty, settings.bundleKeys.isEmpty {
            throw CommandFailure(
                "--bundle-from needs --bundle-key: a host takes only bundles signed with a key it trusts")
        }
    }
}
