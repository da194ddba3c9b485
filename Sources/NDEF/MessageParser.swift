/// Walks NDEF bytes record by record with indices over one buffer, checking every length against what remains
/// before copying anything, reassembling chunks, and validating the content of the records it knows. The records
/// it returns share the storage of the buffer instead of copying it.
struct MessageParser {
    /// The deepest Smart Poster nesting accepted: a Smart Poster inside a Smart Poster inside … four times.
    static let maximumDepth = 4

    let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of `bytes[0]` in the outermost message.
    let origin: Int
    /// How many Smart Posters enclose these bytes.
    let depth: Int
    /// What the bytes are, for messages: `message` or `Smart Poster payload`.
    let container: String

    /// A chunked record being reassembled: its type and ID, then its payload so far.
    private struct Chunked {
        var tnf: TNF
        var typeLength: Int
        var idLength: Int
        var bytes: [UInt8]
        var location: RecordLocation
    }

    /// The records, in order, their content checked. Empty input is an empty message.
    /// - Parameter storage: the bytes `bytes` points to, which the records share.
    func parse<Storage: RandomAccessCollection<UInt8>>(
        sharing storage: Storage
    ) throws(NDEFError) -> [NDEFRecord] where Storage.Index == Int, Storage.SubSequence == ArraySlice<UInt8> {
        var records: [NDEFRecord] = []
        records.reserveCapacity(countRecords())
        try walk { record throws(NDEFError) in
            try record.validateContent()
            records.append(record.shared(from: storage))
        }
        return records
    }

    /// How many records the headers announce (chunk continuations not counted), stopping at the first header
    /// that does not fit; `walk` finds any problem. At most a third of the byte count.
    private func countRecords() -> Int {
        let count = bytes.count
        var offset = 0
        var records = 0
        while count - offset >= 3 {
            let flags = bytes[offset]
            let isShort = flags & 0x10 != 0
            let headerLength = 2 + (isShort ? 1 : 4) + (flags & 0x08 != 0 ? 1 : 0)
            guard count - offset >= headerLength else { break }
            var length = Int(bytes[offset + 1])
            if isShort {
                length += Int(bytes[offset + 2])
            } else {
                length += Int(bytes[offset + 2]) << 24 | Int(bytes[offset + 3]) << 16
                length += Int(bytes[offset + 4]) << 8 | Int(bytes[offset + 5])
            }
            if flags & 0x08 != 0 { length += Int(bytes[offset + headerLength - 1]) }
            guard length <= count - offset - headerLength else { break }
            if flags & 0x07 != TNF.unchanged.rawValue { records += 1 }
            if flags & 0x40 != 0 { break }
            offset += headerLength + length
        }
        return records
    }

    /// Calls `visit` with each record in order, chunks reassembled; throws at the first structural problem.
    func walk(_ visit: (RawRecord) throws(NDEFError) -> Void) throws(NDEFError) {
        let count = bytes.count
        var offset = 0
        var index = 0
        var lastHeader = 0
        var chunked: Chunked?
        var ended = false
        while offset < count {
            let start = offset
            func fail(_ code: NDEFError.Code, _ message: String) -> NDEFError {
                NDEFError(code: code, record: index, offset: origin + start, message: message)
            }
            if ended {
                throw fail(
                    .dataAfterMessageEnd,
                    "the \(container) continues for \(byteCount(count - start)) after the record that has the ME (message "
                        + "end) flag")
            }
            let flags = bytes[start]
            let isShort = flags & 0x10 != 0
            let hasID = flags & 0x08 != 0
            let headerLength = 2 + (isShort ? 1 : 4) + (hasID ? 1 : 0)
            guard count - start >= headerLength else {
                throw fail(
                    .truncatedHeader,
                    "record header needs \(headerLength) bytes but the \(container) ends after \(byteCount(count - start))"
                )
            }
            guard let tnf = TNF(rawValue: flags & 0x07), tnf != .reserved else {
                throw fail(.reservedTNF, "TNF 7 is reserved")
            }
            let isBegin = flags & 0x80 != 0
            let isEnd = flags & 0x40 != 0
            let isChunk = flags & 0x20 != 0
            if index == 0 && !isBegin {
                throw fail(.missingMessageBegin, "the first record does not have the MB (message begin) flag")
            }
            if index > 0 && isBegin {
                throw fail(.unexpectedMessageBegin, "a record after the first has the MB (message begin) flag")
            }
            let typeLength = Int(bytes[start + 1])
            var payloadLength: Int
            if isShort {
                payloadLength = Int(bytes[start + 2])
            } else {
                payloadLength = Int(bytes[start + 2]) << 24 | Int(bytes[start + 3]) << 16
                payloadLength |= Int(bytes[start + 4]) << 8 | Int(bytes[start + 5])
            }
            let idLength = hasID ? Int(bytes[start + headerLength - 1]) : 0
            var position = start + headerLength
            func advance(_ name: String, _ length: Int) throws(NDEFError) {
                guard length <= count - position else {
                    throw fail(
                        .lengthPastEnd,
                        "\(name) length \(length) runs past the end of the \(container) (\(byteCount(count)))")
                }
                position += length
            }
            try advance("type", typeLength)
            try advance("ID", idLength)
            try advance("payload", payloadLength)
            if let (code, message) = checkShape(
                tnf: tnf, typeLength: typeLength, idLength: idLength, payloadLength: payloadLength)
            {
                throw fail(code, message)
            }
            if isChunk && isEnd {
                throw fail(.chunkMisuse, "a record with the CF (chunk) flag also has the ME (message end) flag")
            }
            let typeStart = start + headerLength
            let payloadStart = typeStart + typeLength + idLength
            if var open = chunked {
                chunked = nil  // keeps `open.bytes` uniquely referenced, so appending never copies it
                guard tnf == .unchanged else {
                    throw fail(.chunkMisuse, "a chunked record continues with TNF \(tnf.rawValue) instead of 6")
                }
                if hasID {
                    throw fail(.chunkMisuse, "a chunk continuation has the IL (ID length) flag")
                }
                open.bytes.append(contentsOf: slice(payloadStart, payloadLength))
                if isChunk {
                    chunked = open
                } else {
                    try open.bytes.withUnsafeBufferPointer { all throws(NDEFError) in
                        let idEnd = open.typeLength + open.idLength
                        try visit(
                            RawRecord(
                                tnf: open.tnf, start: nil, reassembled: open.bytes,
                                type: UnsafeBufferPointer(rebasing: all[..<open.typeLength]),
                                id: UnsafeBufferPointer(rebasing: all[open.typeLength..<idEnd]),
                                payload: UnsafeBufferPointer(rebasing: all[idEnd...]), location: open.location))
                    }
                }
            } else {
                if tnf == .unchanged {
                    throw fail(.chunkMisuse, "TNF 6 (unchanged) without a chunked record before it")
                }
                let type = slice(typeStart, typeLength)
                let id = slice(typeStart + typeLength, idLength)
                let payload = slice(payloadStart, payloadLength)
                var location = RecordLocation(
                    record: index, header: origin + start, payload: origin + payloadStart, depth: depth)
                if isChunk {
                    if tnf == .empty {
                        throw fail(.chunkMisuse, "an empty record (TNF 0) has the CF (chunk) flag")
                    }
                    location.payload = nil
                    chunked = Chunked(
                        tnf: tnf, typeLength: typeLength, idLength: idLength,
                        bytes: Array(slice(typeStart, position - typeStart)), location: location)
                } else {
                    try visit(
                        RawRecord(
                            tnf: tnf, start: typeStart, reassembled: nil, type: type, id: id, payload: payload,
                            location: location))
                }
            }
            ended = isEnd
            lastHeader = start
            index += 1
            offset = position
        }
        if count > 0 && !ended {
            let message =
                chunked == nil
                ? "the \(container) ends without a record that has the ME (message end) flag"
                : "the \(container) ends inside a chunked record"
            let code: NDEFError.Code = chunked == nil ? .missingMessageEnd : .chunkMisuse
            throw NDEFError(code: code, record: index - 1, offset: origin + lastHeader, message: message)
        }
    }

    private func slice(_ start: Int, _ length: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[start..<start + length])
    }

    /// The problem with the lengths a TNF allows, if any.
    private func checkShape(
        tnf: TNF, typeLength: Int, idLength: Int, payloadLength: Int
    ) -> (NDEFError.Code, String)? {
        switch tnf {
        case .empty:
            if typeLength != 0 || idLength != 0 || payloadLength != 0 {
                return (
                    .invalidRecordShape,
                    "an empty record (TNF 0) has type length \(typeLength), ID length \(idLength) and payload "
                        + "length \(payloadLength), all must be 0"
                )
            }
        case .wellKnown, .media, .absoluteURI, .external:
            if typeLength == 0 {
                return (.invalidRecordShape, "a record with TNF \(tnf.rawValue) (\(tnf.name)) has no type")
            }
        case .unknown, .unchanged:
            if typeLength != 0 {
                return (
                    .invalidRecordShape,
                    "a record with TNF \(tnf.rawValue) (\(tnf.name)) has type length \(typeLength), must be 0"
                )
            }
        case .reserved:
            return (.reservedTNF, "TNF 7 is reserved")
        }
        return nil
    }
}
