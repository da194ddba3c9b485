import Glibc

/// A TCP connection to vpcd, speaking its framing (2-byte big-endian length, then the payload).
///
/// Blocking calls; used only from one card session's thread, except ``shutdown()`` which may come from any
/// thread to end a blocking receive.
struct VPCDSocket: Sendable {
    let descriptor: Int32

    /// Connects to vpcd.
    /// - Throws: ``VirtualTagError/connectionFailed(host:port:reason:)``.
    static func connect(host: String, port: UInt16) throws(VirtualTagError) -> VPCDSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw .connectionFailed(host: host, port: port, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            let type = current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue)
            let fd = socket(current.pointee.ai_family, type, current.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                    var one: Int32 = 1
                    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    return VPCDSocket(descriptor: fd)
                }
                lastError = errno
                Glibc.close(fd)
            } else {
                lastError = errno
            }
            entry = current.pointee.ai_next
        }
        throw .connectionFailed(host: host, port: port, reason: String(cString: strerror(lastError)))
    }

    /// Receives one message; `nil` when vpcd closed the connection or it broke.
    func receive() -> [UInt8]? {
        guard let header = receive(exactly: 2) else { return nil }
        return receive(exactly: Int(header[0]) << 8 | Int(header[1]))
    }

    /// Sends one message; `false` when the connection broke.
    func send(_ payload: [UInt8]) -> Bool {
        let frame = VPCDFrame.encode(Array(payload.prefix(0xFFFF)))
        var sent = 0
        while sent < frame.count {
            let result = frame.withUnsafeBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress! + sent, frame.count - sent, Int32(MSG_NOSIGNAL))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return false }
            sent += result
        }
        return true
    }

    /// Ends any blocking receive: the card leaves the reader.
    func shutdown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes the descriptor; called once, when the session ends (``PresentedCard``).
    func close() {
        _ = Glibc.close(descriptor)
    }

    private func receive(exactly count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            // vpcd writes the length and the payload separately without TCP_NODELAY: acknowledge at once, or
            // Nagle holds the payload until the delayed ACK (40 ms) and every command takes that long.
            var one: Int32 = 1
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
            let result = buffer.withUnsafeMutableBytes { bytes in
                recv(descriptor, bytes.baseAddress! + received, count - received, 0)
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return nil }
            received += result
        }
        return buffer
    }
}
