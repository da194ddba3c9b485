extension NDEFMessage {
    /// Decodes an NDEF message.
    ///
    /// Every length is checked against the bytes that remain before anything is copied, so hostile input costs
    /// at most its own size; chunks are reassembled; `U`, `T`, `Sp`, absolute-URI and `android.com:pkg` records
    /// are checked. Empty input is an empty message (an empty NDEF TLV).
    /// - Parameter bytes: the message bytes, exactly (nothing may follow the record with the ME flag).
    /// - Throws: ``NDEFError`` naming the record header index and the byte offset of the first problem.
    public init(decoding bytes: some Collection<UInt8>) throws(NDEFError) {
        let result =
            bytes.withContiguousStorageIfAvailable(Self.decode)
            ?? Array(bytes).withUnsafeBufferPointer(Self.decode)
        self.init(records: try result.get())
    }

    private static func decode(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<[NDEFRecord], NDEFError> {
        Result { () throws(NDEFError) in
            try MessageParser(bytes: buffer, origin: 0, depth: 0, container: "message").parse()
        }
    }
}
