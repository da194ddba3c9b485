import Foundation
import NDEF
import TestSupport
import Testing

/// One message of `Fixtures/ndeflib-vectors.json`, written by `scripts/gen-ndef-fixture.py` with ndeflib alone.
struct LibVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Record: Decodable, Sendable {
        var tnf: UInt8
        var type: String
        var id: String
        var payload: String
        var uri: String?
        var text: String?
        var lang: String?
        var encoding: String?
        var titles: [String: String]?
        var action: String?
        var size: UInt32?
        var resourceType: String?
        var records: [Record]?
        var package: String?
    }

    var hex: String
    var records: [Record]

    var testDescription: String { String(hex.prefix(40)) }
}

/// The fixture's messages.
let libVectors: [LibVector] = {
    struct File: Decodable { var vectors: [LibVector] }
    guard let url = Bundle.module.url(forResource: "ndeflib-vectors", withExtension: "json", subdirectory: "Fixtures"),
        let data = try? Data(contentsOf: url),
        let file = try? JSONDecoder().decode(File.self, from: data)
    else { return [] }
    return file.vectors
}()

@Test func fixtureIsLoaded() {
    #expect(libVectors.count > 300)
}

@Test(arguments: libVectors)
func agreesWithNDEFLib(_ vector: LibVector) throws {
    let message = try NDEFMessage(decoding: Hex.bytes(vector.hex))
    try check(message.records, against: vector.records)
    // Our encoder gives back ndeflib's bytes (both write short records where they fit and no chunks).
    #expect(Hex.string(try message.encoded()) == vector.hex)
}

/// Asserts every field ndeflib reported.
func check(_ records: [NDEFRecord], against expected: [LibVector.Record]) throws {
    try #require(records.count == expected.count)
    for (record, reference) in zip(records, expected) {
        let summary = record.summary
        #expect(record.tnf.rawValue == reference.tnf)
        #expect(summary.type == reference.type)
        #expect(summary.id == (reference.id.isEmpty ? nil : reference.id))
        #expect(summary.payload == reference.payload)
        #expect(summary.uri == reference.uri)
        #expect(summary.text == reference.text)
        #expect(summary.lang == reference.lang)
        #expect(summary.encoding == reference.encoding)
        #expect(summary.titles == reference.titles)
        #expect(summary.action == reference.action)
        #expect(summary.package == reference.package)
        if case .smartPoster(let poster) = record.content {
            #expect(poster.size == reference.size)
            #expect(poster.type == reference.resourceType)
            try check(poster.records, against: reference.records ?? [])
        } else {
            #expect(reference.records == nil)
        }
    }
}
