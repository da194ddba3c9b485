import Foundation

/// Finds TCP ports for vpcd, which listens on a port and the next one, for a broker and for the HTTP servers of the
/// tests (`HTTPTestServer.freePort()`).
public enum FreePorts {
    /// Where ports are chosen: below the kernel's range of ephemeral ports (`/proc/sys/net/ipv4/ip_local_port_range`,
    /// 32768-60999 by default). A port in that range can become at any moment the local port of some outgoing
    /// connection (another test process's, to its own vpcd or broker), and a server that stops and starts again on
    /// its port, as pcscd and the broker do in the tests of outages, then fails with "Address already in use". If the
    /// ephemeral range leaves too little below it, the whole range 20000-60000.
    static let candidates: ClosedRange<UInt16> = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        guard let low = text.split(whereSeparator: \.isWhitespace).first.flatMap({ UInt16($0) }), low > 22_000 else {
            return 20_000...60_000
        }
        return 20_000...(low - 2)
    }()

    /// Two consecutive free ports, the first returned.
    static func pair() throws -> UInt16 {
        for _ in 0..<100 {
            let port = UInt16.random(in: candidates)
            if canBind(port) && canBind(port + 1) {
                return port
            }
        }
        throw HarnessError("no two consecutive free TCP ports found in \(candidates)")
    }

    /// One free port, for a broker's or an HTTP server's listener.
    /// - Parameter other: a port already chosen, which this one must not be.
    public static func single(excluding other: UInt16? = nil) throws -> UInt16 {
        for _ in 0..<100 {
            let port = UInt16.random(in: candidates)
            if port != other && canBind(port) && !isListening(port) { return port }
        }
        throw HarnessError("no free TCP port found in \(candidates)")
    }

    /// Whether a socket can be bound to the port on all addresses right now.
    static func canBind(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Whether some process listens on the TCP port (from `/proc/net/tcp` and `tcp6`).
    static func isListening(_ port: UInt16) -> Bool {
        let hex = String(format: ":%04X", port)
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to its end: String(contentsOfFile:) stops after a /proc file's first page (4 KiB, about 27
            // sockets), so on a busy machine a listener further down was never found.
            guard let file = FileHandle(forReadingAtPath: table), let data = try? file.readToEnd() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 3 && fields[1].hasSuffix(hex) && fields[3] == "0A" {
                    return true
                }
            }
        }
        return false
    }
}
