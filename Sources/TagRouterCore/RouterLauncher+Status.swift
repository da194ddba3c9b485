import BundleFormat
import BundleSources
import FleetBundle
import Foundation
import TagRules

extension RouterLauncher {
    /// The MQTT bundle sources' subscriptions (docs/fleet.md, "Sources"), each with a client id of its own
    /// (`tagrouter-<hostname>-bundle-<pid>-<n>`: unique on the broker even for several routers on one machine).
    /// - Throws: ``FleetBundle/BundleError`` when libmosquitto refuses a source's settings.
    static func bundleSubscriptions(_ settings: RouterSettings) throws(BundleError) -> [BundleSubscription] {
        let prefix = MQTTSettings.defaultClientID
        let pid = ProcessInfo.processInfo.processIdentifier
        var subscriptions: [BundleSubscription] = []
        for (index, source) in settings.bundleSources.enumerated() where source.isMQTT {
            subscriptions.append(
                try BundleSubscription(
                    source: source, credentials: settings.bundleCredentials, caFile: settings.bundleTrustAnchors,
                    clientID: "\(prefix)-bundle-\(pid)-\(index)"))
        }
        return subscriptions
    }
}
