import NDEF
import TestSupport
import Testing

/// A URI record with ID `A` (`https://a.bc`), then a chunked media record `text/plain` with payload `hi!`.
let sharedStorageMessage = Hex.bytes("99 01 05 01 55 41 04612e6263  32 0a 02 746578742f706c61696e 6869  56 00 01 21")

/// The address of the first byte of `bytes`, to tell shared storage from a copy.
func firstAddress(_ bytes: some Collection<UInt8>) -> UnsafeRawPointer? {
    bytes.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
}

@Test func decodedRecordsShareTheArray() throws {
    let message = try NDEFMessage(decoding: sharedStorageMessage)
    let uri = message.records[0]
    let start = try #require(firstAddress(sharedStorageMessage))
    #expect(firstAddress(uri.type) == start + 4)
    #expect(firstAddress(uri.id) == start + 5)
    #expect(firstAddress(uri.payload) == start + 6)
    // The chunked record's type stays the message's; its payload is reassembled elsewhere.
    #expect(message.records[1].type == Array("text/plain".utf8))
    #expect(message.records[1].payload == Array("hi!".utf8))
}

/// The message inside an array slice that does not start at 0, and as a collection that is not an array.
@Test(arguments: [0, 3])
func viewsAreZeroBased(padding: Int) throws {
    let padded = Array(repeating: 0xEE, count: padding) + sharedStorageMessage
    for message in [
        try NDEFMessage(decoding: padded[padding...]),
        try NDEFMessage(decoding: padded.dropFirst(padding).lazy.map { $0 }),
    ] {
        let uri = message.records[0]
        #expect(uri.payload.startIndex == 0)
        #expect(uri.payload.indices == 0..<5)
        #expect(uri.payload[0] == 0x04)
        #expect(Array(uri.payload) == [0x04, 0x61, 0x2E, 0x62, 0x63])
        #expect(uri.id[0] == 0x41)
        #expect(uri.type.first == 0x55)
        #expect(uri.payload.dropFirst().first == 0x61)
    }
}

@Test func recordsAreEqualByContentWhereverTheirBytesAre() throws {
    let decoded = try NDEFMessage(decoding: sharedStorageMessage).records
    let built = [
        NDEFRecord(tnf: .wellKnown, type: [0x55], id: [0x41], payload: [0x04, 0x61, 0x2E, 0x62, 0x63]),
        NDEFRecord(tnf: .media, type: Array("text/plain".utf8), payload: Array("hi!".utf8)),
    ]
    #expect(decoded == built)
    #expect(Set(decoded) == Set(built))
    #expect(decoded[0].hashValue == built[0].hashValue)
    // The same bytes split differently between type, ID and payload are another record.
    #expect(
        NDEFRecord(tnf: .media, type: [0x61], id: [0x62], payload: [])
            != NDEFRecord(tnf: .media, type: [0x61], id: [], payload: [0x62]))
    #expect(NDEFBytes([1, 2]) == [1, 2])
    #expect([1, 2] == NDEFBytes([1, 2]))
    #expect(NDEFBytes([1, 2]).description == "[1, 2]")
}

@Test func settingOnePartKeepsTheOthers() throws {
    var record = try NDEFMessage(decoding: sharedStorageMessage).records[0]
    record.payload = [0x01, 0x7A]
    #expect(record.type == [0x55])
    #expect(record.id == [0x41])
    #expect(record.summary.uri == "http://www.z")
    record.id = []
    record.type = NDEFBytes(Array("U".utf8))
    #expect(record == URIRecord(uri: "http://www.z").record)
    #expect(try NDEFMessage(records: [record]).encoded() == Hex.bytes("d1 01 02 55 017a"))
}
