import BundleFormat
import FleetBundle
import Foundation
import Testing

/// Key files (docs/fleet.md, "Keys"): read back what was written; anything else refused with the file's name.
@Suite struct BundleKeysTests {
    @Test func keyFilesRoundTrip() throws {
        let key = BundleSigningKey()
        let again = try BundleSigningKey(text: key.fileText, file: "k.key")
        #expect(again.publicKey == key.publicKey)
        let publicKey = try BundlePublicKey(text: key.publicKey.fileText, file: "k.pub")
        #expect(publicKey == key.publicKey)
        #expect(key.publicKey.fileText.hasPrefix("tagrouter-bundle-ed25519-public "))
        #expect("\(key.publicKey.id)".count == 16)
    }

    @Test(arguments: [
        ("", "k.pub: not a TagRouter bundle public key (expected one line 'tagrouter-bundle-ed25519-public BASE64')"),
        ("tagrouter-bundle-ed25519-public AAAA", "k.pub: the public key is not 32 bytes in base64"),
        (
            "tagrouter-bundle-ed25519-private AAAA",
            "k.pub: this is a private key; a router is given the public key (the .pub file) only"
        ),
        (
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 user",
            "k.pub: not a TagRouter bundle public key (expected one line 'tagrouter-bundle-ed25519-public BASE64')"
        ),
    ])
    func badPublicKeys(text: String, message: String) {
        let error = #expect(throws: BundleError.self) { try BundlePublicKey(text: text, file: "k.pub") }
        #expect(error?.message == message)
        #expect(error?.code == .key)
    }

    @Test func missingKeyFileIsNamed() {
        let error = #expect(throws: BundleError.self) { try BundlePublicKey(contentsOf: "/nonexistent/k.pub") }
        #expect(error?.message == "/nonexistent/k.pub: cannot read the key file")
    }
}
