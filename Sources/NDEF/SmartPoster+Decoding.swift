extension SmartPoster {
    /// Checks an `Sp` payload found at `location` without copying its records: a well-formed nested message with
    /// exactly one URI record and well-formed first action, size and type records.
    static func validate(_ payload: UnsafeBufferPointer<UInt8>, at location: RecordLocation) throws(NDEFError) {
        guard location.depth < MessageParser.maximumDepth else {
            throw location.error(
                .invalidSmartPoster, at: 0, "Smart Posters are nested more than \(MessageParser.maximumDepth) deep")
        }
        var uriCount = 0
        var seen: UInt8 = 0  // LocalType bits already checked
        var problem: String?
        do {
            try nestedParser(payload, at: location).walk { record throws(NDEFError) in
                try record.validateContent()
                guard record.tnf == .wellKnown else { return }
                if record.type.elementsEqual(RecordType.uri) {
                    uriCount += 1
                } else if let local = LocalType(record.type), seen & local.rawValue == 0 {
                    seen |= local.rawValue
                    if problem == nil { problem = local.problem(with: record.payload) }
                }
            }
        } catch {
            throw NDEFError(
                code: error.code, record: location.record,
                offset: location.payload == nil ? location.header : error.offset,
                message: "in the Smart Poster, record \(error.record): \(error.message)")
        }
        if let problem {
            throw location.error(.invalidSmartPoster, at: 0, problem)
        }
        guard uriCount == 1 else {
            throw location.error(
                .invalidSmartPoster, at: 0, "Smart Poster holds \(uriCount) URI records, must hold exactly 1")
        }
    }

    /// Checks and decodes an `Sp` payload found at `location`.
    static func decode(_ payload: NDEFBytes, at location: RecordLocation) throws(NDEFError) -> SmartPoster {
        let records = try payload.withUnsafeBufferPointer { buffer throws(NDEFError) in
            try validate(buffer, at: location)
            return try nestedParser(buffer, at: location).parse(sharing: payload.storage)
        }
        var uri = ""
        var titles: [TextRecord] = []
        var action: Action?
        var size: UInt32?
        var type: String?
        var icons: [NDEFRecord] = []
        for record in records {
            // Everything below was checked by `validate`, so the interpretations cannot fail.
            switch (record.tnf, record.type) {
            case (.wellKnown, RecordType.uri):
                if case .uri(let view) = record.content { uri = view.uri }
            case (.wellKnown, RecordType.text):
                if case .text(let title) = record.content { titles.append(title) }
            case (.wellKnown, RecordType.action) where action == nil:
                action = Action(rawValue: record.payload[0])
            case (.wellKnown, RecordType.size) where size == nil:
                size = record.payload.reduce(0) { $0 << 8 | UInt32($1) }
            case (.wellKnown, RecordType.type) where type == nil:
                type = String(decoding: record.payload, as: UTF8.self)
            case (.media, _) where isIconType(record.type):
                icons.append(record)
            default:
                break
            }
        }
        return SmartPoster(
            uri: uri, titles: titles, action: action, size: size, type: type, icons: icons, records: records)
    }

    private static func nestedParser(
        _ payload: UnsafeBufferPointer<UInt8>, at location: RecordLocation
    ) -> MessageParser {
        MessageParser(
            bytes: payload, origin: location.payload ?? 0, depth: location.depth + 1, container: "Smart Poster payload")
    }

    /// The Smart Poster's own record types whose first occurrence is checked.
    private enum LocalType: UInt8 {
        case action = 1
        case size = 2
        case type = 4

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            if bytes.elementsEqual(RecordType.action) {
                self = .action
            } else if bytes.elementsEqual(RecordType.size) {
                self = .size
            } else if bytes.elementsEqual(RecordType.type) {
                self = .type
            } else {
                return nil
            }
        }

        /// What is wrong with this record's payload, if anything.
        func problem(with payload: UnsafeBufferPointer<UInt8>) -> String? {
            switch self {
            case .action:
                guard payload.count == 1 else {
                    return "Smart Poster action record has a \(payload.count)-byte payload, must be 1"
                }
                return payload[0] <= 2 ? nil : "Smart Poster action \(payload[0]) is not 0 (open), 1 (save) or 2 (edit)"
            case .size:
                return payload.count == 4
                    ? nil : "Smart Poster size record has a \(payload.count)-byte payload, must be 4"
            case .type:
                return UnicodeValidation.firstInvalidUTF8(payload) == nil
                    ? nil : "Smart Poster type record is not valid UTF-8"
            }
        }
    }

    private static let image = Array("image/".utf8)
    private static let video = Array("video/".utf8)

    private static func isIconType(_ type: NDEFBytes) -> Bool {
        let prefix = type.prefix(6).map(RecordType.lowercased)
        return prefix.elementsEqual(image) || prefix.elementsEqual(video)
    }
}
