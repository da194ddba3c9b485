import Foundation

/// A Unix datagram socket standing in for systemd's `NOTIFY_SOCKET`: what a process sends with `sd_notify(3)`
/// arrives here, one message per datagram, so readiness and watchdog pings are tested outside systemd.
public final class NotifySocket: @unchecked Sendable {
    /// The socket's path, for `NOTIFY_SOCKET`.
    public let path: String
    private let descriptor: Int32

    /// Binds a socket at a fresh path in the temporary directory.
    public init() throws {
        path = NSTemporaryDirectory() + "notify-\(UUID().uuidString.prefix(8)).sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket(AF_UNIX, SOCK_DGRAM): errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw HarnessError("notify socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            throw HarnessError("bind \(path): errno \(errno)")
        }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// The next message, or `nil` when none arrives within `timeout`; waits on a dispatch queue, not on one of
    /// Swift's cooperative threads.
    public func receive(timeout: Duration) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.receiveNow(timeout: timeout)) }
        }
    }

    private func receiveNow(timeout: Duration) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count >= 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// The messages that arrive within `duration`.
    public func messages(within duration: Duration) async -> [String] {
        let deadline = ContinuousClock.now + duration
        var received: [String] = []
        while ContinuousClock.now < deadline, let message = await receive(timeout: deadline - ContinuousClock.now) {
            received.append(message)
        }
        return received
    }
}
