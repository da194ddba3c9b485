/// Type 5 block reads and writes through the PC/SC storage-card commands, in whichever form the reader takes
/// (docs/tags.md, "Type 5 tags"):
///
/// - READ `FF B0 <block MSB> <block LSB> <Le>`, one block per command. Le starts at 4; `6C xx` asks again
///   with Le `xx`. The block size (4 or 8) is the length block 0 comes back with.
/// - A read answered `67 00`, `6A 81` or `6B 00` is asked again with the block number in P1 (and its high
///   byte in P2), the form of the Windows NFC class extension; the form that worked is kept.
/// - UPDATE `FF D6 <hi> <lo> <block size> <data>` in the same form, one block per command.
struct Type5Blocks {
    /// The block size in bytes, known once block 0 was read.
    private(set) var blockSize = 4
    /// Whether the block number goes in P1 (low byte) and P2 (high byte) instead of P1-P2 big-endian.
    private(set) var blockInP1 = false
    /// The Le to ask for.
    private var le = 4
    /// Whether block 0 was read (and so the block size is known).
    private(set) var isSized = false
    /// Whether a command past block 0 worked, so the block-number form is settled.
    private var isFormConfirmed = false
    /// How many commands were sent.
    private(set) var commandCount = 0

    /// The READ or UPDATE command for `block`.
    func command(_ instruction: UInt8, block: Int, length: Int, data: [UInt8] = []) -> [UInt8] {
        let high = UInt8(truncatingIfNeeded: block >> 8)
        let low = UInt8(truncatingIfNeeded: block)
        let p1p2: [UInt8] = blockInP1 ? [low, high] : [high, low]
        return [0xFF, instruction] + p1p2 + [UInt8(truncatingIfNeeded: length)] + data
    }

    /// Reads one block.
    /// - Returns: the block's bytes (`blockSize` of them; block 0 sets the size).
    /// - Throws: `NFCTagError`: `tagRemoved`, `unexpectedStatus` (naming the command, block and byte offset),
    ///   `unexpectedResponse` for a block of another length.
    mutating func read(block: Int, channel: some CardChannel) async throws -> [UInt8] {
        var retriedLength = false
        while true {
            let command = command(0xB0, block: block, length: le)
            let response = try await send(command, block: block, channel: channel)
            let status = response.status
            if response.isSuccess {
                let count = response.dataCount
                if !isSized {
                    guard count == 4 || count == 8 else {
                        throw NFCTagError(
                            .unexpectedResponse, offset: 0,
                            "Type 5 \(Self.describe(command)) of block 0 answered \(count) bytes; a block is 4 or 8 bytes"
                        )
                    }
                    blockSize = count
                    le = count
                    isSized = true
                } else if count != blockSize {
                    throw NFCTagError(
                        .unexpectedResponse, offset: block * blockSize,
                        "Type 5 \(Self.describe(command)) of block \(block) at byte \(block * blockSize) answered \(count) bytes, not one \(blockSize)-byte block"
                    )
                }
                return Array(response.data)
            }
            if status >> 8 == 0x6C, !retriedLength, !isSized, status & 0xFF != 0 {
                le = Int(status & 0xFF)
                retriedLength = true
                continue
            }
            throw Self.failure(command, response, block: block, blockSize: blockSize)
        }
    }

    /// Writes one block.
    /// - Throws: `NFCTagError`: `tagRemoved`, `unexpectedStatus` naming the command, block and byte offset.
    mutating func write(block: Int, data: [UInt8], channel: some CardChannel) async throws {
        let response = try await send(
            command(0xD6, block: block, length: data.count, data: data), block: block, channel: channel)
        guard response.isSuccess else {
            throw Self.failure(
                command(0xD6, block: block, length: data.count, data: data), response, block: block,
                blockSize: blockSize)
        }
    }

    /// Sends a command; until a command past block 0 has worked, a `67 00`, `6A 81` or `6B 00` to one is asked
    /// again in the other block-number form, which is kept if it works.
    private mutating func send(_ command: [UInt8], block: Int, channel: some CardChannel) async throws -> ResponseAPDU {
        commandCount += 1
        let response = try await channel.exchange(command)
        guard block > 0, !isFormConfirmed else { return response }
        let status = response.status
        if response.isSuccess {
            isFormConfirmed = true
            return response
        }
        guard status == 0x6700 || status == 0x6A81 || status == 0x6B00 else { return response }
        blockInP1.toggle()
        var other = command
        other.replaceSubrange(2..<4, with: self.command(command[1], block: block, length: 0)[2..<4])
        commandCount += 1
        let retried = try await channel.exchange(other)
        if retried.isSuccess {
            isFormConfirmed = true
            return retried
        }
        blockInP1.toggle()
        return response
    }

    /// The error for a refused block command.
    static func failure(_ command: [UInt8], _ response: ResponseAPDU, block: Int, blockSize: Int) -> NFCTagError {
        let sw = CommandName.hex(response.bytes[(response.bytes.count - 2)...], separator: " ")
        return NFCTagError(
            .unexpectedStatus, offset: block * blockSize,
            "Type 5 \(describe(command)) of block \(block) at byte \(block * blockSize) answered status \(sw)")
    }

    /// `READ (FF B0 00 03 04)`, `UPDATE (FF D6 00 03 04)`: the command and its header bytes.
    static func describe(_ command: [UInt8]) -> String {
        let name = command[1] == 0xB0 ? "READ" : "UPDATE"
        return "\(name) (\(CommandName.hex(command.prefix(5), separator: " ")))"
    }
}
