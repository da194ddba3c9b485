import Foundation
import Glibc

/// A hand-written stand-in for vpcd: listens on a free loopback port, accepts one card, and lets the test send
/// vpcd messages and read the card's answers. Blocking socket calls run on their own threads.
final class FakeVPCD: Sendable {
    let port: UInt16
    private let listener: Int32

    /// Binds a free loopback port.
    /// - Parameter listening: `false` keeps the port bound but refusing connections (a vpcd that is not there,
    ///   without the port going to another test meanwhile).
    init(listening: Bool = true) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && (!listening || listen(listener, 1) == 0)
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(listener)
    }

    /// Waits for the card to connect.
    func accept() async -> Connection {
        let listener = listener
        return Connection(descriptor: await onThread { Glibc.accept(listener, nil, nil) })
    }

    /// One card's connection.
    struct Connection: Sendable {
        let descriptor: Int32

        /// Sends one framed message.
        func send(_ payload: [UInt8]) {
            let frame = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
            _ = frame.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// Receives one framed message; `nil` when the card closed the connection.
        func receive() async -> [UInt8]? {
            let descriptor = descriptor
            return await onThread {
                func read(_ count: Int) -> [UInt8]? {
                    var buffer = [UInt8](repeating: 0, count: count)
                    var done = 0
                    while done < count {
                        let got = buffer.withUnsafeMutableBytes {
                            recv(descriptor, $0.baseAddress! + done, count - done, 0)
                        }
                        guard got > 0 else { return nil }
                        done += got
                    }
                    return buffer
                }
                guard let header = read(2) else { return nil }
                return read(Int(header[0]) << 8 | Int(header[1]))
            }
        }

        func close() {
            Glibc.close(descriptor)
        }
    }
}

/// Runs blocking work on a new thread and waits for it.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
