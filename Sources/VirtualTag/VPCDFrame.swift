/// vpcd's framing: every message is a 2-byte big-endian length followed by the payload.
public enum VPCDFrame {
    /// Frames a payload for vpcd.
    /// - Parameter payload: at most 65,535 bytes.
    /// - Returns: the length prefix followed by the payload.
    public static func encode(_ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= 0xFFFF, "vpcd frames hold at most 65535 bytes")
        return [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    }
}
