public import NFCTag
import Synchronization

/// A Type 2 tag behind a PC/SC reader, as a memory image: answers `FF CA 00 00 00` with the UID and
/// `FF B0 00 <page> <Le>` with pages, the way the readers of docs/tags.md do.
public final class Type2Memory: CardChannel {
    /// How the reader answers a READ BINARY.
    public enum ReaderKind: Sendable {
        /// ACR122U / ACR1252U: Le bytes (a multiple of 4 up to 16).
        case upTo16
        /// Identiv uTrust: one 4-byte page whatever Le says.
        case onePage
        /// A reader that refuses any Le but 4 with this status word (`6C 04`, `67 00`, `63 00`).
        case onlyLe4(status: UInt16)
    }

    /// The whole tag memory from page 0.
    public let image: [UInt8]
    /// The reader behaviour.
    public let kind: ReaderKind
    /// The UID answered to `FF CA`, or nil to answer `6A 81`.
    public let uid: [UInt8]?
    private let log = Mutex<[[UInt8]]>([])

    /// Creates a tag.
    /// - Parameters:
    ///   - image: the memory from page 0; its length is the tag's memory size (reads past it answer `63 00`).
    ///   - kind: the reader behaviour.
    ///   - uid: the UID.
    public init(image: [UInt8], kind: ReaderKind = .upTo16, uid: [UInt8]? = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80])
    {
        self.image = image
        self.kind = kind
        self.uid = uid
    }

    /// Builds an image: UID pages 0-2 (zeros), the CC at page 3, then the data area, padded with zeros to
    /// `16 + size × 8` bytes plus `tail` bytes of lock/config pages.
    /// - Parameters:
    ///   - cc: the four CC bytes.
    ///   - dataArea: the data area's first bytes.
    ///   - tail: extra bytes after the data area.
    public static func image(cc: [UInt8], dataArea: [UInt8], tail: Int = 16) -> [UInt8] {
        let size = Int(cc[2]) * 8
        var image = [UInt8](repeating: 0, count: 12) + cc + dataArea
        image += [UInt8](repeating: 0, count: max(0, 16 + size - image.count) + tail)
        return image
    }

    /// The commands received so far.
    public var sent: [[UInt8]] { log.withLock { $0 } }

    /// The READ BINARY commands received so far.
    public var reads: [[UInt8]] { sent.filter { $0.starts(with: [0xFF, 0xB0]) } }

    /// Answers a command.
    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        log.withLock { $0.append(command) }
        if command == [0xFF, 0xCA, 0x00, 0x00, 0x00] {
            guard let uid else { return [0x6A, 0x81] }
            return uid + [0x90, 0x00]
        }
        guard command.count == 5, command[0] == 0xFF, command[1] == 0xB0 else { return [0x6D, 0x00] }
        let address = (Int(command[2]) << 8 | Int(command[3])) * 4
        let le = command[4] == 0 ? 256 : Int(command[4])
        let count: Int
        switch kind {
        case .upTo16:
            guard le % 4 == 0, le <= 16 else { return [0x67, 0x00] }
            count = le
        case .onePage:
            count = 4
        case .onlyLe4(let status):
            guard le == 4 else { return [UInt8(status >> 8), UInt8(status & 0xFF)] }
            count = 4
        }
        guard address + count <= image.count else { return [0x63, 0x00] }
        return Array(image[address..<(address + count)]) + [0x90, 0x00]
    }
}
