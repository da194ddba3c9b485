extension SmartPoster {
    /// Decodes and checks an `Sp` payload found at `location`.
    static func decode(_ payload: [UInt8], at location: RecordLocation) throws(NDEFError) -> SmartPoster {
        guard location.depth < MessageParser.maximumDepth else {
            throw location.error(
                .invalidSmartPoster, at: 0, "Smart Posters are nested more than \(MessageParser.maximumDepth) deep")
        }
        let result = payload.withUnsafeBufferPointer { buffer in
            Result { () throws(NDEFError) in
                try MessageParser(
                    bytes: buffer, origin: location.payload ?? 0, depth: location.depth + 1,
                    container: "Smart Poster payload"
                ).parse()
            }
        }
        let records: [NDEFRecord]
        switch result {
        case .success(let decoded): records = decoded
        case .failure(let inner):
            throw NDEFError(
                code: inner.code, record: location.record,
                offset: location.payload == nil ? location.header : inner.offset,
                message: "in the Smart Poster, record \(inner.record): \(inner.message)")
        }
        var uris: [String] = []
        var titles: [TextRecord] = []
        var action: Action?
        var size: UInt32?
        var type: String?
        var icons: [NDEFRecord] = []
        let nested = RecordLocation(record: location.record, header: location.header, payload: nil, depth: 0)
        for record in records {
            switch (record.tnf, record.type) {
            case (.wellKnown, RecordType.uri):
                uris.append(try URIRecord.decode(record.payload, at: nested))
            case (.wellKnown, RecordType.text):
                titles.append(try TextRecord.decode(record.payload, at: nested))
            case (.wellKnown, RecordType.action) where action == nil:
                guard record.payload.count == 1 else {
                    throw location.error(
                        .invalidSmartPoster, at: 0,
                        "Smart Poster action record has a \(record.payload.count)-byte payload, must be 1")
                }
                guard let value = Action(rawValue: record.payload[0]) else {
                    throw location.error(
                        .invalidSmartPoster, at: 0,
                        "Smart Poster action \(record.payload[0]) is not 0 (open), 1 (save) or 2 (edit)")
                }
                action = value
            case (.wellKnown, RecordType.size) where size == nil:
                guard record.payload.count == 4 else {
                    throw location.error(
                        .invalidSmartPoster, at: 0,
                        "Smart Poster size record has a \(record.payload.count)-byte payload, must be 4")
                }
                size = record.payload.reduce(0) { $0 << 8 | UInt32($1) }
            case (.wellKnown, RecordType.type) where type == nil:
                guard UnicodeValidation.firstInvalidUTF8(record.payload, in: 0..<record.payload.count) == nil else {
                    throw location.error(.invalidSmartPoster, at: 0, "Smart Poster type record is not valid UTF-8")
                }
                type = String(decoding: record.payload, as: UTF8.self)
            case (.media, _) where isIconType(record.type):
                icons.append(record)
            default:
                break
            }
        }
        guard uris.count == 1 else {
            throw location.error(
                .invalidSmartPoster, at: 0, "Smart Poster holds \(uris.count) URI records, must hold exactly 1")
        }
        return SmartPoster(
            uri: uris[0], titles: titles, action: action, size: size, type: type, icons: icons, records: records)
    }

    private static let image = Array("image/".utf8)
    private static let video = Array("video/".utf8)

    private static func isIconType(_ type: [UInt8]) -> Bool {
        let prefix = type.prefix(6).map(RecordType.lowercased)
        return prefix.elementsEqual(image) || prefix.elementsEqual(video)
    }
}
