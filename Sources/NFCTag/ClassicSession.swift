/// One tap's conversation with a MIFARE Classic card through the PC/SC storage-card pseudo-APDUs (PC/SC Part 3;
/// ACR122U API 2.04 §5; docs/tags.md, "MIFARE Classic"): LOAD KEY `FF 82`, AUTHENTICATE `FF 86` (or the
/// obsolete `FF 88`), READ `FF B0 00 <block> 10`, UPDATE `FF D6 00 <block> 10`.
///
/// It remembers what each key slot holds (a key is loaded once per tap) and which sector the last successful
/// AUTHENTICATE opened (one sector at a time), so callers only say what they need. Error messages name the
/// command, its block and the card byte address (block × 16) it concerns.
struct ClassicSession<Channel: CardChannel> {
    /// The channel to the card.
    let channel: Channel
    /// The card's name for messages, e.g. `MIFARE Classic 1K`.
    let cardName: String
    /// What each key slot holds.
    private var slots: [UInt8: [UInt8]] = [:]
    /// The sector and key of the last successful AUTHENTICATE, if it still holds.
    private(set) var authenticated: (sector: Int, key: ClassicAccessBits.Key, slot: UInt8)?
    /// Set once the reader refused `FF 86` as unknown: `FF 88` is used from then on.
    private var usesObsoleteAuthenticate = false

    init(channel: Channel, cardName: String) {
        self.channel = channel
        self.cardName = cardName
    }

    /// Loads a key into a volatile slot (`FF 82 00 <slot> 06 <key>`), unless the slot already holds it.
    /// - Returns: whether the slot holds the key; false when the reader refused it.
    /// - Throws: `NFCTagError` (`tagRemoved`, `unexpectedResponse`), `CancellationError`.
    mutating func load(_ key: [UInt8], slot: UInt8) async throws -> Bool {
        if slots[slot] == key { return true }
        let response = try await send([0xFF, 0x82, 0x00, slot, 0x06] + key, "LOAD KEY slot \(slot)")
        guard response.isSuccess else {
            slots[slot] = nil
            return false
        }
        slots[slot] = key
        return true
    }

    /// Authenticates a sector with the key in `slot`, unless that very authentication already holds.
    /// - Returns: whether it succeeded; false when the card refused (wrong key, no such sector): nothing is
    ///   authenticated then.
    /// - Throws: `NFCTagError` (`tagRemoved`, `unexpectedResponse`), `CancellationError`.
    mutating func authenticate(sector: Int, key: ClassicAccessBits.Key, slot: UInt8) async throws -> Bool {
        if let current = authenticated, current.sector == sector, current.key == key, current.slot == slot {
            return true
        }
        authenticated = nil
        let block = UInt8(MifareClassicModel.authenticationBlock(ofSector: sector))
        let keyType: UInt8 = key == .a ? 0x60 : 0x61
        let name = "AUTHENTICATE block \(block) with key \(key == .a ? "A" : "B") (slot \(slot))"
        if !usesObsoleteAuthenticate {
            let response = try await send([0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, block, keyType, slot], name)
            if response.isSuccess {
                authenticated = (sector, key, slot)
                return true
            }
            // 6D 00 / 6E 00 / 6A 81 / 68 00: the reader does not know FF 86; try the obsolete form.
            guard [0x6D00, 0x6E00, 0x6A81, 0x6800].contains(response.status) else { return false }
            usesObsoleteAuthenticate = true
        }
        let response = try await send([0xFF, 0x88, 0x00, block, keyType, slot], name)
        guard response.isSuccess else { return false }
        authenticated = (sector, key, slot)
        return true
    }

    /// Forgets the authentication, so the next command for the sector authenticates again (after a trailer
    /// write changed its keys).
    mutating func forgetAuthentication() {
        authenticated = nil
    }

    /// Reads one block (`FF B0 00 <block> 10`) of the authenticated sector.
    /// - Returns: the 16 bytes, or nil when the card refused the read (any status but `90 00`).
    /// - Throws: `NFCTagError` (`tagRemoved`, `unexpectedResponse` for an answer that is not 16 bytes),
    ///   `CancellationError`.
    mutating func readIfAllowed(block: Int) async throws -> [UInt8]? {
        let name = "READ block \(block)"
        let response = try await send([0xFF, 0xB0, 0x00, UInt8(block), 0x10], name)
        guard response.isSuccess else {
            // A refused read drops the card to idle: the authentication no longer holds.
            authenticated = nil
            return nil
        }
        guard response.dataCount == 16 else {
            throw NFCTagError(
                .unexpectedResponse, offset: block * 16,
                "\(cardName) \(name) (byte \(block * 16)) answered \(response.dataCount) bytes, not 16")
        }
        return Array(response.data)
    }

    /// Reads one block of the authenticated sector; a refusal is an error.
    /// - Throws: as `readIfAllowed(block:)`, and `unexpectedStatus` naming the block and its byte address.
    mutating func read(block: Int) async throws -> [UInt8] {
        let name = "READ block \(block)"
        guard let bytes = try await readIfAllowed(block: block) else {
            throw status(name, block: block)
        }
        return bytes
    }

    /// Writes one block (`FF D6 00 <block> 10 <16 bytes>`) of the authenticated sector.
    /// - Throws: `NFCTagError` (`tagRemoved`, `unexpectedResponse`, `unexpectedStatus` naming the block and its
    ///   byte address), `CancellationError`.
    mutating func write(block: Int, _ data: [UInt8]) async throws {
        precondition(data.count == 16, "a MIFARE Classic block is 16 bytes")
        let name = "UPDATE block \(block)"
        let response = try await send([0xFF, 0xD6, 0x00, UInt8(block), 0x10] + data, name)
        guard response.isSuccess else { throw status(name, block: block) }
    }

    /// The error for a command that answered a status other than `90 00`; the last status is remembered.
    private mutating func status(_ name: String, block: Int) -> NFCTagError {
        // A refused read or write drops the card to idle: the authentication no longer holds.
        authenticated = nil
        let sw = lastStatus.map { CommandName.hex([UInt8($0 >> 8), UInt8($0 & 0xFF)][...], separator: " ") } ?? "?"
        return NFCTagError(
            .unexpectedStatus, offset: block * 16,
            "\(cardName) \(name) (byte \(block * 16)) answered status \(sw)")
    }

    /// The status word of the last response.
    private var lastStatus: UInt16? = nil

    /// Sends a command; any channel error means the tag is gone.
    private mutating func send(_ command: [UInt8], _ name: String) async throws -> ResponseAPDU {
        let bytes: [UInt8]
        do {
            bytes = try await channel.transmit(command)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw NFCTagError(.tagRemoved, "tag removed during \(cardName) \(name)", cause: error)
        }
        guard bytes.count >= 2 else {
            throw NFCTagError(
                .unexpectedResponse, "\(cardName) \(name) answered \(bytes.count) byte(s), no status word")
        }
        let response = ResponseAPDU(bytes: bytes)
        lastStatus = response.status
        return response
    }
}
