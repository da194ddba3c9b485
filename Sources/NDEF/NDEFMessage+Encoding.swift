extension NDEFMessage {
    /// Encodes the message: MB on the first record, ME on the last, short records where the payload fits in
    /// 255 bytes, IL where a record has an ID, never chunked. An empty message encodes to no bytes.
    /// - Returns: the bytes.
    /// - Throws: ``NDEFError`` with code `unencodable` for a record with TNF 6 or 7, an empty record (TNF 0)
    ///   with a type, ID or payload, or a type or ID longer than 255 bytes.
    public func encoded() throws(NDEFError) -> [UInt8] {
        for (index, record) in records.enumerated() {
            func fail(_ message: String) -> NDEFError {
                NDEFError(code: .unencodable, record: index, offset: 0, message: message)
            }
            if record.tnf == .unchanged || record.tnf == .reserved {
                throw fail("TNF \(record.tnf.rawValue) (\(record.tnf.name)) cannot be encoded")
            }
            if record.tnf == .empty && !(record.type.isEmpty && record.id.isEmpty && record.payload.isEmpty) {
                throw fail("an empty record (TNF 0) cannot have a type, ID or payload")
            }
            if record.type.count > 255 || record.id.count > 255 {
                throw fail("type (\(record.type.count) bytes) or ID (\(record.id.count) bytes) exceeds 255 bytes")
            }
            if UInt64(record.payload.count) > UInt64(UInt32.max) {
                throw fail("payload of \(record.payload.count) bytes exceeds 4 GiB")
            }
        }
        return Self.encode(records)
    }

    /// Encodes records already known to be encodable.
    static func encode(_ records: [NDEFRecord]) -> [UInt8] {
        var size = 0
        for record in records { size += 7 + record.type.count + record.id.count + record.payload.count }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for (index, record) in records.enumerated() {
            let isShort = record.payload.count < 256
            var flags = record.tnf.rawValue
            if index == 0 { flags |= 0x80 }
            if index == records.count - 1 { flags |= 0x40 }
            if isShort { flags |= 0x10 }
            if !record.id.isEmpty { flags |= 0x08 }
            bytes.append(flags)
            bytes.append(UInt8(truncatingIfNeeded: record.type.count))
            let length = UInt32(truncatingIfNeeded: record.payload.count)
            if isShort {
                bytes.append(UInt8(length))
            } else {
                bytes.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF)])
                bytes.append(contentsOf: [UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            }
            if !record.id.isEmpty { bytes.append(UInt8(truncatingIfNeeded: record.id.count)) }
            record.type.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
            record.id.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
            record.payload.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
        }
        return bytes
    }
}
