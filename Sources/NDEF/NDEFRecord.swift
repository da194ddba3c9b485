/// One NDEF record as it stands after decoding: chunks reassembled, header flags consumed.
///
/// The type, ID and payload are ``NDEFBytes``. A decoded record shares the storage of the message bytes (one
/// reference for all three, which lie next to each other in the message); records are equal when their TNF,
/// type, ID and payload bytes are.
public struct NDEFRecord: Sendable, Hashable {
    /// How to read ``type``.
    public var tnf: TNF
    /// The type, ID and payload bytes in a row, as in the message.
    private var bytes: ArraySlice<UInt8>
    /// How many of `bytes` are the type.
    private var typeCount: Int
    /// How many of `bytes`, after the type, are the ID.
    private var idCount: Int

    /// Creates a record from its parts.
    /// - Parameters:
    ///   - tnf: the type name format.
    ///   - type: the type bytes.
    ///   - id: the identifier bytes, empty for none.
    ///   - payload: the payload bytes.
    public init(tnf: TNF, type: [UInt8], id: [UInt8] = [], payload: [UInt8]) {
        self.init(tnf: tnf, type: NDEFBytes(type), id: NDEFBytes(id), payload: NDEFBytes(payload))
    }

    /// Creates a record from its parts, copying them into one buffer (sharing the payload's storage when there is
    /// no type and no ID).
    init(tnf: TNF, type: NDEFBytes, id: NDEFBytes, payload: NDEFBytes) {
        self.tnf = tnf
        typeCount = type.count
        idCount = id.count
        if type.isEmpty && id.isEmpty {
            bytes = payload.storage
        } else {
            var joined: [UInt8] = []
            joined.reserveCapacity(type.count + id.count + payload.count)
            joined.append(contentsOf: type.storage)
            joined.append(contentsOf: id.storage)
            joined.append(contentsOf: payload.storage)
            bytes = joined[...]
        }
    }

    /// A record whose type, ID and payload are `bytes`, in a row.
    init(tnf: TNF, sharing bytes: ArraySlice<UInt8>, typeCount: Int, idCount: Int) {
        self.tnf = tnf
        self.bytes = bytes
        self.typeCount = typeCount
        self.idCount = idCount
    }

    /// The record type bytes (for well-known types, `U`, `T`, `Sp` in ASCII).
    public var type: NDEFBytes {
        get { NDEFBytes(sharing: bytes.prefix(typeCount)) }
        set { self = NDEFRecord(tnf: tnf, type: newValue, id: id, payload: payload) }
    }

    /// The record identifier, empty when the record has none.
    public var id: NDEFBytes {
        get {
            let start = bytes.startIndex + typeCount
            return NDEFBytes(sharing: bytes[start..<start + idCount])
        }
        set { self = NDEFRecord(tnf: tnf, type: type, id: newValue, payload: payload) }
    }

    /// The (reassembled) payload.
    public var payload: NDEFBytes {
        get { NDEFBytes(sharing: bytes.dropFirst(typeCount + idCount)) }
        set { self = NDEFRecord(tnf: tnf, type: type, id: id, payload: newValue) }
    }

    /// Whether two records have the same TNF, type, ID and payload.
    /// - Parameters:
    ///   - lhs: a record.
    ///   - rhs: another record.
    /// - Returns: `true` when all four are equal.
    public static func == (lhs: NDEFRecord, rhs: NDEFRecord) -> Bool {
        lhs.tnf == rhs.tnf && lhs.typeCount == rhs.typeCount && lhs.idCount == rhs.idCount && lhs.bytes == rhs.bytes
    }

    /// Hashes the TNF, type, ID and payload.
    /// - Parameter hasher: the hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tnf)
        hasher.combine(typeCount)
        hasher.combine(idCount)
        hasher.combine(NDEFBytes(sharing: bytes))
    }
}
