import NDEF
import Testing

@Test(
    arguments: [
        (TNF.empty, 0), (.wellKnown, 1), (.media, 2), (.absoluteURI, 3), (.external, 4), (.unknown, 5), (.unchanged, 6),
        (.reserved, 7),
    ] as [(TNF, UInt8)])
func tnfRawValues(tnf: TNF, raw: UInt8) {
    #expect(tnf.rawValue == raw)
    #expect(TNF(rawValue: raw) == tnf)
}
