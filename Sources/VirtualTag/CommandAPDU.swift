/// A command APDU split into its fields (ISO 7816-4 cases 1 to 4, short and extended).
struct CommandAPDU: Sendable, Hashable {
    var cla: UInt8
    var ins: UInt8
    var p1: UInt8
    var p2: UInt8
    var data: [UInt8]
    /// The expected response length (`Le` 0 means 256 short, 65536 extended); `nil` when absent.
    var le: Int?

    /// Parses `bytes`; `nil` when the lengths do not add up.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        cla = bytes[0]
        ins = bytes[1]
        p1 = bytes[2]
        p2 = bytes[3]
        data = []
        le = nil
        let body = Array(bytes.dropFirst(4))
        if body.isEmpty { return }
        if body.count == 1 {
            le = body[0] == 0 ? 256 : Int(body[0])
            return
        }
        if body[0] != 0 {
            let lc = Int(body[0])
            if body.count == 1 + lc {
                data = Array(body[1...lc])
            } else if body.count == 2 + lc {
                data = Array(body[1...lc])
                le = body[1 + lc] == 0 ? 256 : Int(body[1 + lc])
            } else {
                return nil
            }
            return
        }
        guard body.count >= 3 else { return nil }
        let first = Int(body[1]) << 8 | Int(body[2])
        if body.count == 3 {
            le = first == 0 ? 65536 : first
            return
        }
        let lc = first
        guard lc > 0 else { return nil }
        if body.count == 3 + lc {
            data = Array(body[3..<(3 + lc)])
        } else if body.count == 5 + lc {
            data = Array(body[3..<(3 + lc)])
            let value = Int(body[3 + lc]) << 8 | Int(body[4 + lc])
            le = value == 0 ? 65536 : value
        } else {
            return nil
        }
    }
}

extension CommandAPDU {
    /// The reader's answer to its GET DATA pseudo-APDU (`FF CA`): the UID for P1 = 00, else "function not
    /// supported".
    /// - Parameter uid: the card's UID.
    /// - Returns: the response APDU.
    func uidAnswer(_ uid: [UInt8]) -> [UInt8] {
        p1 == 0x00 ? uid + StatusWord.ok : StatusWord.functionNotSupported
    }
}
