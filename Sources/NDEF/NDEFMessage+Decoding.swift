extension NDEFMessage {
    /// Decodes an NDEF message.
    ///
    /// Every length is checked against the bytes that remain before anything is copied, so hostile input costs
    /// at most its own size; chunks are reassembled; `U`, `T`, `Sp`, absolute-URI and `android.com:pkg` records
    /// are checked. Empty input is an empty message (an empty NDEF TLV).
    ///
    /// The records share the array's storage (see ``NDEFBytes``): decoding copies no bytes, except to reassemble
    /// chunked payloads.
    /// - Parameter bytes: the message bytes, exactly (nothing may follow the record with the ME flag).
    /// - Throws: ``NDEFError`` naming the record header index and the byte offset of the first problem.
    public init(decoding bytes: borrowing [UInt8]) throws(NDEFError) {
        self.init(records: try Self.records(sharing: bytes))
    }

    /// Decodes an NDEF message held in part of an array, as decoding an array does; byte offsets in errors count
    /// from the slice's first byte, and the records share the array's storage.
    /// - Parameter bytes: the message bytes, exactly (nothing may follow the record with the ME flag).
    /// - Throws: ``NDEFError`` naming the record header index and the byte offset of the first problem.
    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(NDEFError) {
        self.init(records: try Self.records(sharing: bytes))
    }

    /// Decodes an NDEF message from any collection of bytes, as decoding an array does; bytes that are not an
    /// array or array slice are copied once into an array the records share.
    /// - Parameter bytes: the message bytes, exactly (nothing may follow the record with the ME flag).
    /// - Throws: ``NDEFError`` naming the record header index and the byte offset of the first problem.
    public init(decoding bytes: some Collection<UInt8>) throws(NDEFError) {
        if let array = bytes as? [UInt8] {
            try self.init(decoding: array)
        } else if let slice = bytes as? ArraySlice<UInt8> {
            try self.init(decoding: slice)
        } else {
            try self.init(decoding: Array(bytes))
        }
    }

    /// The records of the message in `array`, sharing its storage.
    private static func records(sharing array: [UInt8]) throws(NDEFError) -> [NDEFRecord] {
        try array.withUnsafeBufferPointer { buffer throws(NDEFError) in
            try MessageParser(bytes: buffer, origin: 0, depth: 0, container: "message").parse(sharing: array)
        }
    }

    /// The records of the message in `slice`, sharing its storage.
    private static func records(sharing slice: ArraySlice<UInt8>) throws(NDEFError) -> [NDEFRecord] {
        try slice.withUnsafeBufferPointer { buffer throws(NDEFError) in
            try MessageParser(bytes: buffer, origin: 0, depth: 0, container: "message").parse(sharing: slice)
        }
    }
}
