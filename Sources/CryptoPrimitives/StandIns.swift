#if FuzzingStandIns && !SwiftCrypto
    /// The fuzz build's stand-ins for ``CryptoPrimitives`` (the trait `FuzzingStandIns`): the same shapes, no
    /// security at all. The block "cipher" XORs the key in and rotates the bytes, so that CBC decrypts what it
    /// encrypts; the MAC is a CBC-MAC of it over the message padded with `80 00…`; the digest folds the message
    /// into 32 bytes. Compiled only with `FuzzingStandIns` and without `SwiftCrypto`, which every build but the fuzz
    /// build has.
    enum StandIns {
        static func digest(_ bytes: [UInt8]) -> [UInt8] {
            var lanes: [UInt64] = [
                0xCBF2_9CE4_8422_2325, 0x8422_2325_CBF2_9CE4, 0x9CE4_CBF2_2325_8422, 0x2325_9CE4_8422_CBF2,
            ]
            for byte in bytes {
                for lane in lanes.indices { lanes[lane] = (lanes[lane] ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            }
            return lanes.flatMap { lane in (0..<8).map { UInt8(truncatingIfNeeded: lane >> ($0 * 8)) } }
        }

        static func mac(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
            var padded = message
            if padded.isEmpty || padded.count % CryptoPrimitives.blockLength != 0 {
                padded.append(0x80)
                while padded.count % CryptoPrimitives.blockLength != 0 { padded.append(0) }
            }
            let zero = [UInt8](repeating: 0, count: CryptoPrimitives.blockLength)
            return Array(encrypt(padded, key: key, iv: zero).suffix(CryptoPrimitives.blockLength))
        }

        static func encrypt(_ plain: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8] {
            var previous = iv
            var out: [UInt8] = []
            for start in stride(from: 0, to: plain.count, by: CryptoPrimitives.blockLength) {
                let mixed = (0..<CryptoPrimitives.blockLength).map { plain[start + $0] ^ previous[$0] ^ key[$0] }
                previous = Array(mixed[1...] + mixed[..<1])
                out += previous
            }
            return out
        }

        static func decrypt(_ encrypted: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8] {
            var previous = iv
            var out: [UInt8] = []
            for start in stride(from: 0, to: encrypted.count, by: CryptoPrimitives.blockLength) {
                let block = Array(encrypted[start..<start + CryptoPrimitives.blockLength])
                let mixed = Array(block.suffix(1) + block.dropLast())
                out += (0..<CryptoPrimitives.blockLength).map { mixed[$0] ^ previous[$0] ^ key[$0] }
                previous = block
            }
            return out
        }
    }
#endif
