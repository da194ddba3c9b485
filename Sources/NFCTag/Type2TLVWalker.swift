/// The Type 2 TLV stream walk as a state machine: fed the data-area bytes available so far, it either asks
/// for more or reports where the NDEF message is. The caller reads pages and calls `step` again; nothing is
/// read that the stream does not need.
///
/// Indices are data-area indices (index 0 is tag byte `baseAddress`, 16 on Type 2); error offsets are tag byte
/// addresses. Type 5 and Type 1 tags use the same TLVs: their readers give their own base address and label.
struct Type2TLVWalker {
    /// What the walk needs or found.
    enum Step: Equatable {
        /// Data-area bytes `0..<count` must be available to go on.
        case need(Int)
        /// The NDEF TLV's value: `length` usable bytes from `start`, ending (reserved bytes included) at `end`.
        case ndef(start: Int, end: Int, length: Int)
        /// A terminator, or the end of the data area, came before any NDEF TLV.
        case noNDEF
    }

    /// The data area size in bytes.
    let dataAreaSize: Int
    /// The tag byte address of data-area index 0, for the addresses in Lock and Memory Control TLVs (16 on Type 2,
    /// 12 on Type 1).
    let baseAddress: Int
    /// Whether Lock Control (`01`) and Memory Control (`02`) TLVs reserve bytes (Types 1 and 2); Type 5 has none,
    /// so there they are skipped by their length like any other TLV.
    let hasControlTLVs: Bool
    /// The reserved areas announced so far.
    private(set) var reserved = Type2ReservedAreas()
    /// The index of the next TLV (reserved bytes not yet skipped).
    private var position = 0

    /// Names a data-area index in error messages: the byte offset to report and the words that place the TLV
    /// there (Type 2: tag byte 16 + index; MIFARE Classic: the card byte of the block holding it).
    let locate: (Int) -> (offset: Int, phrase: String)

    /// Creates a walker for a data area of the given size.
    /// - Parameters:
    ///   - dataAreaSize: the data area size in bytes.
    ///   - hasControlTLVs: whether Lock and Memory Control TLVs reserve bytes.
    ///   - locate: how error messages place an index; Type 2's tag byte addresses by default.
    ///   - baseAddress: the tag byte address of index 0, for Lock and Memory Control TLV addresses.
    init(
        dataAreaSize: Int, hasControlTLVs: Bool = true, baseAddress: Int = 16,
        locate: @escaping (Int) -> (offset: Int, phrase: String) = { (16 + $0, "Type 2 TLV at byte \(16 + $0)") }
    ) {
        self.dataAreaSize = dataAreaSize
        self.hasControlTLVs = hasControlTLVs
        self.baseAddress = baseAddress
        self.locate = locate
    }

    /// Creates a walker for a data area that starts at a tag byte address, errors naming `label TLV at byte N`.
    /// - Parameters:
    ///   - dataAreaSize: the data area size in bytes.
    ///   - baseAddress: the tag byte address where the data area starts (4 or 8 on Type 5, 12 on Type 1).
    ///   - label: the tag type named in error messages.
    ///   - hasControlTLVs: whether Lock and Memory Control TLVs reserve bytes.
    init(dataAreaSize: Int, baseAddress: Int, label: String, hasControlTLVs: Bool = true) {
        self.init(dataAreaSize: dataAreaSize, hasControlTLVs: hasControlTLVs, baseAddress: baseAddress) {
            (baseAddress + $0, "\(label) TLV at byte \(baseAddress + $0)")
        }
    }

    /// What a whole data area already in memory holds, walked from the start (the dump parsers `Type1TLV`,
    /// `Type2TLV` and `Type5TLV` share this).
    /// - Parameter dataArea: the whole data area.
    /// - Returns: `.message`, `.empty` for an NDEF TLV of length 0, `.absent` when none comes first.
    /// - Throws: `NFCTagError.malformedTLV`, as ``step(_:available:)``.
    func content(ofWhole dataArea: [UInt8]) throws(NFCTagError) -> TagReading.Content {
        var walker = self
        switch try walker.step(dataArea, available: dataArea.count) {
        case .need:
            preconditionFailure("the walker asked for bytes past a complete data area")
        case .noNDEF:
            return .absent
        case .ndef(_, _, length: 0):
            return .empty
        case .ndef(let start, let end, _):
            return .message(walker.value(dataArea, start: start, end: end))
        }
    }

    /// Goes on with the walk over `bytes[0..<available]`.
    /// - Parameters:
    ///   - bytes: the data-area bytes read so far.
    ///   - available: how many of them are valid (at most `bytes.count`).
    /// - Returns: what the walk needs or found.
    /// - Throws: `NFCTagError.malformedTLV` for a truncated TLV or a length past the data area.
    mutating func step(_ bytes: [UInt8], available: Int) throws(NFCTagError) -> Step {
        switch try walk(bytes, available: available, stopsAtNDEFLength: false) {
        case .need(let count): return .need(count)
        case .ndef(let start, let end, let length): return .ndef(start: start, end: end, length: length)
        case .ndefLength: preconditionFailure("the walk stops at the NDEF TLV's length only when asked to")
        case .terminator, .end: return .noNDEF
        }
    }

    /// Where a walk stopped: the writer's view (``Type2DataAreaLayout``), which also tells a terminator from the
    /// end of the data area and stops at the NDEF TLV's first length byte without checking the old length.
    enum Stop: Equatable {
        /// Data-area bytes `0..<count` must be available to go on.
        case need(Int)
        /// The NDEF TLV's value, its length checked (``step(_:available:)``).
        case ndef(start: Int, end: Int, length: Int)
        /// The NDEF TLV whose tag byte is at `tlvStart` and whose first length byte is at `lengthIndex`.
        case ndefLength(tlvStart: Int, lengthIndex: Int)
        /// A terminator TLV at `index`.
        case terminator(at: Int)
        /// The end of the data area, with no NDEF TLV and no terminator.
        case end
    }

    /// The start of the NULL TLVs that run up to where the walk is, if the last TLVs walked were NULL TLVs.
    private(set) var nullRunStart: Int?
    /// The lock bits the Lock Control TLVs walked so far announce.
    private(set) var lockAreas: [Type2DataAreaLayout.LockArea] = []

    /// The one TLV walk: ``step(_:available:)`` and ``Type2DataAreaLayout/walk(_:dataAreaSize:)`` both use it.
    /// - Parameters:
    ///   - bytes: the data-area bytes read so far.
    ///   - available: how many of them are valid (at most `bytes.count`).
    ///   - stopsAtNDEFLength: stop at the NDEF TLV's first length byte (``Stop/ndefLength(tlvStart:lengthIndex:)``)
    ///     instead of reading and checking its length: a writer writes over a message whose length is broken.
    /// - Returns: where the walk stopped.
    /// - Throws: `NFCTagError.malformedTLV` for a truncated TLV, a length past the data area or a control TLV of a
    ///   length other than 3.
    mutating func walk(_ bytes: [UInt8], available: Int, stopsAtNDEFLength: Bool) throws(NFCTagError) -> Stop {
        while true {
            var index = reserved.firstUsable(from: position)
            guard index < dataAreaSize else { return .end }
            let tlvStart = index
            guard index < available else { return .need(index + 1) }
            let tag = bytes[index]
            index += 1
            if tag == 0x00 {
                if nullRunStart == nil { nullRunStart = tlvStart }
                position = index
                continue
            }
            if tag == 0xFE { return .terminator(at: tlvStart) }
            nullRunStart = nil

            var length = 0
            for lengthByte in 0..<3 {
                index = reserved.firstUsable(from: index)
                guard index < dataAreaSize else { throw truncated(tag, at: tlvStart) }
                guard index < available else { return .need(index + 1) }
                if lengthByte == 0, tag == 0x03, stopsAtNDEFLength {
                    return .ndefLength(tlvStart: tlvStart, lengthIndex: index)
                }
                let byte = Int(bytes[index])
                index += 1
                if lengthByte == 0 {
                    guard byte == 0xFF else {
                        length = byte
                        break
                    }
                } else {
                    length = length << 8 | byte
                }
            }

            let end = reserved.end(from: index, count: length)
            guard end <= dataAreaSize else {
                let (offset, phrase) = locate(tlvStart)
                throw NFCTagError(
                    .malformedTLV, offset: offset,
                    "\(phrase): \(Self.name(of: tag)) length \(length) runs past the data area (\(dataAreaSize) bytes)")
            }
            switch tag {
            case 0x03:
                return .ndef(start: index, end: end, length: length)
            case 0x01,
                0x02 where hasControlTLVs:
                guard length == 3 else {
                    let (offset, phrase) = locate(tlvStart)
                    throw NFCTagError(
                        .malformedTLV, offset: offset,
                        "\(phrase): \(Self.name(of: tag)) length is \(length), 3 expected")
                }
                guard end <= available else { return .need(end) }
                let value = reserved.usableBytes(of: bytes, from: index, to: end)
                reserved.add(
                    pa: value[0], bs: value[1], ps: value[2], isLock: tag == 0x01, dataAreaSize: dataAreaSize,
                    baseAddress: baseAddress)
                if tag == 0x01 {
                    let address = (Int(value[0] >> 4) << Int(value[2] & 0x0F)) + Int(value[0] & 0x0F)
                    lockAreas.append(.init(address: address, bits: value[1] == 0 ? 256 : Int(value[1])))
                }
            default:
                break  // proprietary (FD) and reserved tags: skipped by length
            }
            position = end
        }
    }

    /// The NDEF value found by `step`, reserved bytes left out.
    func value(_ bytes: [UInt8], start: Int, end: Int) -> [UInt8] {
        reserved.usableBytes(of: bytes, from: start, to: end)
    }

    /// The error for a TLV whose length is cut off by the end of the data area.
    private func truncated(_ tag: UInt8, at tlvStart: Int) -> NFCTagError {
        let (offset, phrase) = locate(tlvStart)
        return NFCTagError(
            .malformedTLV, offset: offset,
            "\(phrase): \(Self.name(of: tag)) length is cut off by the end of the data area (\(dataAreaSize) bytes)")
    }

    /// The name of a TLV tag for messages.
    static func name(of tag: UInt8) -> String {
        switch tag {
        case 0x01: "Lock Control"
        case 0x02: "Memory Control"
        case 0x03: "NDEF"
        case 0xFD: "proprietary TLV"
        default: "TLV \(CommandName.hex(tag))"
        }
    }
}
