import BundleFormat
import FleetBundle
import Foundation
import MQTTClient
import TagActions

extension BundleCommands {
    /// `tagrouter bundle publish --broker … [--topic T] [--key NAME.pub] FILE`: the bundle file as the topic's
    /// retained message (QoS 1, waiting for the broker's acknowledgement), which every host with that MQTT source
    /// takes (docs/fleet.md, "Sources"). With keys, the file is verified first and nothing is published unless it
    /// verifies.
    /// - Parameters:
    ///   - broker: the broker.
    ///   - topic: the topic (`tagrouter/fleet/bundle`).
    ///   - keys: public key files to verify the bundle with first; none: only its first bytes are checked.
    ///   - file: the bundle file.
    ///   - environment: the broker's credentials and CA (`TAGROUTER_MQTT_USERNAME`, `…_PASSWORD`, `…_CA`).
    /// - Returns: a line saying what was published; status 1 with the reason when nothing was.
    public static func publish(
        broker: BrokerAddress, topic: String, keys: [String], file: String, environment: [String: String]
    ) async -> CommandOutput {
        let data: Data
        do throws(BundleError) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            if let size = attributes?[.size] as? Int, size > BundleLayout.maximumSize {
                throw BundleError(.tooLarge, "\(file): \(size) bytes, more than a bundle may take")
            }
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw BundleError(.io, "\(file): cannot read the file")
            }
            data = contents
            if keys.isEmpty {
                guard data.starts(with: BundleLayout.magic) else {
                    throw BundleError(
                        .format, "\(file): byte 0: not a TagRouter bundle (it does not start with 'TRBUNDLE')")
                }
            } else {
                let trusted = try keys.map { (path) throws(BundleError) in try BundlePublicKey(contentsOf: path) }
                _ = try SignedBundle(verifying: data, name: file, trustedKeys: trusted)
            }
        } catch {
            return .failure(error.message + "; nothing published")
        }
        if topic.isEmpty || topic.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) {
            return .failure("--topic '\(topic)': a topic to publish to has no wildcard; nothing published")
        }
        do {
            let session = try await BrokerSession.connect(
                to: broker, clientID: BrokerSession.clientID("publish"), environment: environment)
            defer { session.connection.stop() }
            let id = try session.connection.publish(
                MQTTMessage(topic: topic, payload: Array(data), qos: 1, retain: true))
            let timer = Task {
                try await Task.sleep(for: .seconds(30))
                session.connection.stop()
            }
            defer { timer.cancel() }
            for await event in session.events {
                switch event {
                case .acknowledged(let acknowledged) where acknowledged == id:
                    return .lines([
                        "\(file): published to \(broker) on \(topic), retained (\(data.count) bytes, sha256 "
                            + "\(SignedBundle.digest(of: data)))"
                    ])
                case .stopped:
                    return .failure("\(broker): the broker did not acknowledge the bundle within 30 s")
                default:
                    continue
                }
            }
            return .failure("\(broker): the connection ended before the broker acknowledged the bundle")
        } catch {
            return .failure("\(error)")
        }
    }
}
