public import Foundation
import NDEF

/// Event ids: UUID version 7 (RFC 9562), so ids sort by time, written in lowercase.
public enum EventID {
    /// A new id for an event at `date`.
    /// - Parameter date: the event time; its milliseconds since 1970 fill the first 48 bits.
    /// - Returns: the id, e.g. `0193b0c2-5e1f-7a3b-9c4d-2e6f8a0b1c3d`.
    public static func make(at date: Date = Date()) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        // Two 64-bit draws (one getrandom each), not one per byte.
        let random = [generator.next() as UInt64, generator.next() as UInt64]
        for index in 6..<16 { bytes[index] = UInt8(truncatingIfNeeded: random[index / 8] >> (8 * (index % 8))) }
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { HexText.string(bytes[$0]) }.joined(separator: "-")
    }
}
