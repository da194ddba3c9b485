import Foundation

/// Finds TCP ports for vpcd, which listens on a port and the next one.
enum FreePorts {
    /// Two consecutive free ports, the first returned.
    static func pair() throws -> UInt16 {
        for _ in 0..<100 {
            let port = UInt16.random(in: 20_000...60_000)
            if canBind(port) && canBind(port + 1) {
                return port
            }
        }
        throw HarnessError("no two consecutive free TCP ports found between 20000 and 60001")
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
