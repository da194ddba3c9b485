/// The record types this module interprets, as bytes.
enum RecordType {
    static let uri: [UInt8] = Array("U".utf8)
    static let text: [UInt8] = Array("T".utf8)
    static let smartPoster: [UInt8] = Array("Sp".utf8)
    static let action: [UInt8] = Array("act".utf8)
    static let size: [UInt8] = Array("s".utf8)
    static let type: [UInt8] = Array("t".utf8)
    static let androidApplication: [UInt8] = Array("android.com:pkg".utf8)

    /// Whether `type` equals `name` ignoring ASCII case.
    static func equalsIgnoringCase(_ type: some Collection<UInt8>, _ name: [UInt8]) -> Bool {
        guard type.count == name.count else { return false }
        for (left, right) in zip(type, name) where lowercased(left) != lowercased(right) {
            return false
        }
        return true
    }

    /// The ASCII-lowercased byte.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
