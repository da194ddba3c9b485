import CZlib
import Foundation
import GRDB
import Logging

/// The intake log of the releases of 26 November 2026 (`<state dir>/intake.log`): deliveries were written there
/// first, with one `write(2)`, and inserted into the `deliveries` table afterwards. SQLite is now the one store of
/// record; a log such a release left behind is read once by ``StateDatabase/importLegacyIntakeLog()`` and removed.
///
/// A record: `TRI1`, the payload's length and its CRC-32 (both 32-bit little-endian), then the payload: the id,
/// event id, rule, URL, method, headers (JSON), content type, body, secret (after a presence byte), timeout,
/// creation time, deadline, kind, QoS and retain flag; integers 64-bit little-endian, texts and bytes with a 32-bit
/// length before them, the retain flag a byte.
enum LegacyIntakeLog {
    static let magic: [UInt8] = Array("TRI1".utf8)
    /// A record larger than this is not one a router wrote: the rest of the log is ignored.
    static let maxPayload = 64 * 1024 * 1024

    /// The log's path in a state directory.
    static func path(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + "intake.log" : directory + "/intake.log"
    }

    /// The deliveries of a whole log, up to the first record that is cut short or damaged.
    struct Contents {
        var deliveries: [Delivery]
        /// Where the readable records end, and why, when bytes follow them.
        var damage: (offset: Int, reason: String)?
    }

    /// Decodes a whole log.
    static func decode(_ bytes: [UInt8]) -> Contents {
        var deliveries: [Delivery] = []
        var offset = 0
        func damaged(_ reason: String) -> Contents { Contents(deliveries: deliveries, damage: (offset, reason)) }
        while offset < bytes.count {
            guard bytes.count - offset >= 12 else { return damaged("a record header cut short") }
            guard Array(bytes[offset..<offset + 4]) == magic else { return damaged("no record marker") }
            let length = Int(littleEndian32(bytes, offset + 4))
            let checksum = littleEndian32(bytes, offset + 8)
            guard length <= maxPayload, bytes.count - offset - 12 >= length else {
                return damaged("a record of \(length) bytes cut short")
            }
            let payload = bytes[(offset + 12)..<(offset + 12 + length)]
            guard CRC32.checksum(payload) == checksum else { return damaged("a record whose checksum does not match") }
            guard let delivery = decodePayload(payload) else { return damaged("a record whose fields do not parse") }
            deliveries.append(delivery)
            offset += 12 + length
        }
        return Contents(deliveries: deliveries, damage: nil)
    }

    private static func littleEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }

    private static func decodePayload(_ payload: ArraySlice<UInt8>) -> Delivery? {
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
        guard let timeout = integer(), let created = integer(), let deadline = integer(),
            let kind = text().flatMap(Delivery.Kind.init(rawValue:)), let qos = integer(),
            let retain = take(1)?.first, cursor == payload.endIndex,
            let decodedHeaders = try? JSONDecoder().decode([Delivery.Header].self, from: Data(headers.utf8))
        else { return nil }
        var delivery = Delivery(
            kind: kind, eventID: eventID, rule: rule, target: url, method: Delivery.Method(rawValue: method),
            createdAt: Date(), retryFor: .zero)
        delivery.id = id
        delivery.headers = decodedHeaders
        delivery.contentType = contentType
        delivery.body = body
        delivery.secret = secret
        delivery.timeoutMilliseconds = timeout
        delivery.qos = Int(qos)
        delivery.retain = retain != 0
        delivery.createdAt = created
        delivery.nextAttemptAt = created
        delivery.deadline = deadline
        return delivery
    }
}

/// CRC-32 (IEEE 802.3) of the intake log's records: zlib's, the one CRC-32 of the package.
enum CRC32 {
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        let bytes = Array(bytes)
        return UInt32(bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, UInt32($0.count)) })
    }
}

extension StateDatabase {
    /// Imports the intake log a release of 26 November 2026 left in the state directory, once: the deliveries it
    /// holds that the table never received (a crash between the log's write and the insert) are inserted with
    /// their ids, then the log is removed. Without a log this does nothing.
    /// - Returns: how many deliveries were imported.
    /// - Throws: ``StateStoreError`` when the log cannot be read or removed, or a router of that release still
    ///   holds it.
    @discardableResult
    public func importLegacyIntakeLog() throws -> Int {
        let logPath = LegacyIntakeLog.path(in: directory)
        let descriptor = open(logPath, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 && errno == ENOENT { return 0 }
        guard descriptor >= 0 else {
            throw StateStoreError("intake log \(logPath): cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            throw StateStoreError(
                "intake log \(logPath) is locked by another process: is a tagrouter of an earlier release running on this state directory?"
            )
        }
        guard let bytes = FileManager.default.contents(atPath: logPath) else {
            throw StateStoreError("intake log \(logPath): cannot read")
        }
        let contents = LegacyIntakeLog.decode(Array(bytes))
        if let damage = contents.damage {
            logger.warning(
                "intake log: the end of the log is unreadable and was dropped",
                metadata: ["file": "\(logPath)", "byte_offset": "\(damage.offset)", "error": "\(damage.reason)"])
        }
        let imported = try write("import the intake log \(logPath)") { db -> Int in
            let highest = max(
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'deliveries'") ?? 0,
                try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM deliveries") ?? 0)
            let missing = contents.deliveries.filter { $0.id > highest }.sorted { $0.id < $1.id }
            for delivery in missing { try Self.insertRow(delivery, keepingID: true, db) }
            return missing.count
        }
        guard unlink(logPath) == 0 else {
            throw StateStoreError("intake log \(logPath): cannot remove: \(String(cString: strerror(errno)))")
        }
        logger.notice(
            "intake log of an earlier release imported and removed",
            metadata: ["count": "\(imported)", "file": "\(logPath)"])
        return imported
    }
}
