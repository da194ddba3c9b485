import Foundation

/// One row of the `deliveries` table as it is accepted: every column an INSERT sets.
struct DeliveryRow: Sendable, Hashable {
    var id: Int64
    var eventID: String
    var rule: String
    var url: String
    var method: String
    /// The headers as the `headers` column holds them (``Outbox/headersJSON(_:)``).
    var headers: String
    var contentType: String
    var body: [UInt8]
    var secret: String?
    var timeoutMilliseconds: Int64
    var created: Int64
    var deadline: Int64
    /// `webhook` or `mqtt`.
    var kind: String
    var qos: Int64
    var retain: Bool
}

/// The intake log, `<state dir>/intake.log`: where the router writes a delivery before anything else, with one
/// `write(2)`, so that a webhook's first attempt can start before the (slower) SQLite insert.
///
/// Each accepted row is appended as one record and then inserted into the `deliveries` table, in the order of
/// its id (``Outbox`` keeps that order). At start-up the rows whose id is above the highest the table has ever
/// held (`sqlite_sequence`) are inserted from the log; every other record was inserted already. The log is
/// emptied once every record it holds is in the table. Like SQLite in WAL mode with `synchronous = NORMAL`, it
/// survives the router's crash or kill, without an `fsync` per write (docs/cli.md, "The state database").
///
/// A record: `TRI1`, the payload's length and its CRC-32 (both 32-bit little-endian), then the payload: the
/// row's fields in ``DeliveryRow`` order, integers as 64-bit little-endian, texts and bytes with a 32-bit
/// length before them, the secret after a presence byte, `retain` as a byte.
final class IntakeLog: @unchecked Sendable {
    static let magic: [UInt8] = Array("TRI1".utf8)
    /// A record larger than this is not one the router wrote: the rest of the log is ignored.
    static let maxPayload = 64 * 1024 * 1024
    /// The log is emptied when it has grown past this and every record in it is in the table.
    static let truncateAbove = 256 * 1024

    let path: String
    /// The open log (`O_APPEND`), locked with `flock` so only one router uses it. Used under ``Outbox``'s lock.
    private let descriptor: Int32
    private(set) var size: Int

    /// The log's path in a state directory.
    static func path(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + "intake.log" : directory + "/intake.log"
    }

    /// What ``open(path:)`` found in an existing log.
    struct Contents {
        var rows: [DeliveryRow]
        /// Where the readable records end, and why, when bytes follow them.
        var damage: (offset: Int, reason: String)?
    }

    /// Opens (creating 0600) and locks the log.
    /// - Returns: the log and the records it held, or `nil` when another process holds its lock.
    /// - Throws: ``ActionError`` (`stateDatabase`) naming the path when it cannot be opened or read.
    static func open(path: String) throws -> (IntakeLog, Contents)? {
        let descriptor = Glibc.open(path, O_CREAT | O_RDWR | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ActionError(.stateDatabase, "intake log \(path): cannot open: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw ActionError(.stateDatabase, "intake log \(path): cannot read: \(reason)")
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            offset += off_t(count)
        }
        let log = IntakeLog(path: path, descriptor: descriptor, size: bytes.count)
        return (log, decode(bytes))
    }

    private init(path: String, descriptor: Int32, size: Int) {
        self.path = path
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    /// Appends one record with a single `write(2)`.
    /// - Throws: ``ActionError`` (`stateDatabase`) when the write fails or is short; the log is then cut back to
    ///   where it was, so no partial record stays before later ones.
    func append(_ row: DeliveryRow) throws {
        let record = Self.encode(row)
        let written = record.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == record.count else {
            let reason = written < 0 ? String(cString: strerror(errno)) : "short write (\(written) of \(record.count))"
            _ = ftruncate(descriptor, off_t(size))
            throw ActionError(.stateDatabase, "intake log \(path): cannot append: \(reason)")
        }
        size += record.count
    }

    /// Empties the log (every record in it is in the table).
    func truncate() {
        if ftruncate(descriptor, 0) == 0 { size = 0 }
    }

    // MARK: - Records

    static func encode(_ row: DeliveryRow) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(96 + row.url.utf8.count + row.headers.utf8.count + row.body.count)
        func integer(_ value: Int64) {
            withUnsafeBytes(of: value.littleEndian) { payload.append(contentsOf: $0) }
        }
        func bytes(_ value: some Collection<UInt8>) {
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { payload.append(contentsOf: $0) }
            payload.append(contentsOf: value)
        }
        integer(row.id)
        for text in [row.eventID, row.rule, row.url, row.method, row.headers, row.contentType] { bytes(text.utf8) }
        bytes(row.body)
        payload.append(row.secret == nil ? 0 : 1)
        if let secret = row.secret { bytes(secret.utf8) }
        integer(row.timeoutMilliseconds)
        integer(row.created)
        integer(row.deadline)
        bytes(row.kind.utf8)
        integer(row.qos)
        payload.append(row.retain ? 1 : 0)
        var record = magic
        record.reserveCapacity(12 + payload.count)
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { record.append(contentsOf: $0) }
        withUnsafeBytes(of: CRC32.checksum(payload).littleEndian) { record.append(contentsOf: $0) }
        record += payload
        return record
    }

    /// The rows of a whole log, up to the first record that is cut short or damaged.
    static func decode(_ bytes: [UInt8]) -> Contents {
        var rows: [DeliveryRow] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 12 else {
                return Contents(rows: rows, damage: (offset, "a record header cut short"))
            }
            guard Array(bytes[offset..<offset + 4]) == magic else {
                return Contents(rows: rows, damage: (offset, "no record marker"))
            }
            let length = Int(littleEndian32(bytes, offset + 4))
            let checksum = littleEndian32(bytes, offset + 8)
            guard length <= maxPayload, bytes.count - offset - 12 >= length else {
                return Contents(rows: rows, damage: (offset, "a record of \(length) bytes cut short"))
            }
            let payload = bytes[(offset + 12)..<(offset + 12 + length)]
            guard CRC32.checksum(payload) == checksum else {
                return Contents(rows: rows, damage: (offset, "a record whose checksum does not match"))
            }
            guard let row = decodePayload(payload) else {
                return Contents(rows: rows, damage: (offset, "a record whose fields do not parse"))
            }
            rows.append(row)
            offset += 12 + length
        }
        return Contents(rows: rows, damage: nil)
    }

    private static func littleEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }

    private static func decodePayload(_ payload: ArraySlice<UInt8>) -> DeliveryRow? {
        var cursor = payload.startIndex
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, payload.endIndex - cursor >= count else { return nil }
            defer { cursor += count }
            return payload[cursor..<(cursor + count)]
        }
        func integer() -> Int64? {
            take(8).map { $0.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) } }
        }
        func bytes() -> [UInt8]? {
            guard let length = take(4).map({ $0.reversed().reduce(0) { $0 << 8 | Int($1) } }) else { return nil }
            return take(length).map(Array.init)
        }
        func text() -> String? { bytes().flatMap { String(validating: $0, as: UTF8.self) } }
        guard let id = integer(), let eventID = text(), let rule = text(), let url = text(), let method = text(),
            let headers = text(), let contentType = text(), let body = bytes(), let hasSecret = take(1)?.first
        else { return nil }
        var secret: String?
        if hasSecret == 1 {
            guard let value = text() else { return nil }
            secret = value
        }
        guard let timeout = integer(), let created = integer(), let deadline = integer(), let kind = text(),
            kind == "webhook" || kind == "mqtt", let qos = integer(), let retain = take(1)?.first,
            cursor == payload.endIndex
        else { return nil }
        return DeliveryRow(
            id: id, eventID: eventID, rule: rule, url: url, method: method, headers: headers,
            contentType: contentType, body: body, secret: secret, timeoutMilliseconds: timeout, created: created,
            deadline: deadline, kind: kind, qos: qos, retain: retain != 0)
    }
}

/// CRC-32 (IEEE 802.3, reflected, as zlib computes it), for the intake log's records.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { value, _ in value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
