import FuzzSupport
import NFCTag

/// The Type 2 write planner over a data area in memory. Input: the data area size (byte 0: (b + 1) × 8 bytes),
/// the message length (bytes 1-2, modulo 1024; the message is a counting pattern), then the data area's bytes.
/// Invariants: planning asks only for more bytes than it has and never past the data area; errors are
/// `malformedTLV` or `insufficientCapacity` with a tag byte address in the data area; a plan writes no page
/// before the NDEF TLV's page, changes no byte before the NDEF TLV and no reserved byte; after every prefix of
/// its writes the data area decodes to the old message, an empty one or the new one (the old one only before the
/// first write that hides it), and after all of them to the new one; every page written ends as `result` says; the
/// refusal and the layout are the same whether the planner gets 16 bytes at a time or more than it asked for, and
/// both plans keep the invariants (knowing more, a plan may skip pages already right or keep bytes after `FE`).
@_cdecl("fuzz_type2_write_plan_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let sizeByte = input.byte(), let high = input.byte(), let low = input.byte(), sizeByte < 255 else {
        return 0
    }
    let dataAreaSize = (Int(sizeByte) + 1) * 8
    let message = (0..<((Int(high) << 8 | Int(low)) % 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
    var image = Array(input.rest().prefix(dataAreaSize))
    image += [UInt8](repeating: 0, count: dataAreaSize - image.count)

    // The planner is fed as a write reads, 16-byte chunks each time it asks for more, which re-walks the TLVs from
    // the start at every chunk (quadratic: the target ran at 950 executions a second); and with at least twice the
    // bytes it had (`doubling`). Every input takes the doubling path; areas up to 512 bytes the exact one too.
    let plan: Type2WritePlan
    do {
        plan = try planned(message, image, dataAreaSize, doubling: true)
    } catch {
        let offset = error.offset ?? -1
        check(error.code == .malformedTLV || error.code == .insufficientCapacity, "error \(error.code): \(error)")
        check(offset >= 16 && offset <= 16 + dataAreaSize, "error offset \(offset) of \(dataAreaSize): \(error)")
        if error.code == .insufficientCapacity, let layout = try? layoutOf(image, dataAreaSize) {
            check(
                message.count > layout.capacity || layout.usableBytes < 2,
                "refused \(message.count) bytes, capacity \(layout.capacity)")
        }
        if dataAreaSize <= 512 {
            do {
                _ = try planned(message, image, dataAreaSize, doubling: false)
                check(false, "fed 16 bytes at a time the planner accepts what it refused fed more: \(error)")
            } catch let exact {
                check(
                    exact.code == error.code && exact.offset == error.offset, "\(exact) fed exactly, \(error) doubled")
            }
        }
        return 0
    }
    var plans = [plan]
    if dataAreaSize <= 512 {
        let exact = try? planned(message, image, dataAreaSize, doubling: false)
        check(exact?.layout == plan.layout, "fed exactly: \(String(describing: exact)), fed more: \(plan)")
        if let exact { plans.append(exact) }
    }
    for plan in plans { checkWrites(of: plan, message: message, image: image) }
    return 0
}

/// Applies `plan`'s writes one by one to `image`, checking the invariants of every prefix.
private func checkWrites(of plan: Type2WritePlan, message: [UInt8], image: [UInt8]) {
    let dataAreaSize = image.count
    let layout = plan.layout
    check(message.count <= layout.capacity, "planned \(message.count) bytes past capacity \(layout.capacity)")
    let old = try? Type2TLV.ndefMessage(inDataArea: image)
    let new: TagReading.Content = message.isEmpty ? .empty : .message(message)
    let reserved = Set(layout.reservedRanges.flatMap { $0 })
    var current = image
    var hidden = false
    for (index, write) in plan.writes.enumerated() {
        let start = (write.page - 4) * 4
        check(write.bytes.count == 4 && start >= 0 && start + 4 <= dataAreaSize, "write \(write) out of the area")
        check(start / 4 >= layout.tlvStart / 4, "write \(index) to page \(write.page) before the NDEF TLV")
        current.replaceSubrange(start..<(start + 4), with: write.bytes)
        for position in start..<(start + 4) where position < layout.tlvStart || reserved.contains(position) {
            check(current[position] == image[position], "write \(index) changed byte \(position) it must keep")
        }
        let content: TagReading.Content
        do {
            content = try Type2TLV.ndefMessage(inDataArea: current)
        } catch {
            check(false, "after write \(index) of \(plan.writes.count) the data area is broken: \(error)")
            return
        }
        if content != old || hidden {
            hidden = true
            check(
                content == .empty || content == new || (content == .absent && old == .absent),
                "after write \(index) of \(plan.writes.count) the tag holds \(content)")
        }
    }
    check((try? Type2TLV.ndefMessage(inDataArea: current)) == new, "the plan does not end with the new message")
    for page in Set(plan.writes.map(\.page)) {
        let range = ((page - 4) * 4)..<((page - 4) * 4 + 4)
        check(current[range] == plan.result[range], "page \(page) ends unlike the plan's result")
    }
}

/// Runs the planner to its plan, giving it the data area's bytes each time it asks for more: the 16-byte reads a
/// write makes, or (when `doubling`) at least twice what it had.
private func planned(
    _ message: [UInt8], _ image: [UInt8], _ dataAreaSize: Int, doubling: Bool
) throws(NFCTagError) -> Type2WritePlan {
    var known = Array(image.prefix(8))
    while true {
        switch try Type2WritePlan.make(message: message, known: known, dataAreaSize: dataAreaSize) {
        case .need(let count):
            check(count > known.count && count <= dataAreaSize, "need \(count) with \(known.count) known")
            let read = (count + 15) / 16 * 16
            known = Array(image.prefix(min(dataAreaSize, doubling ? max(read, known.count * 2) : read)))
        case .plan(let made):
            return made
        }
    }
}

/// The layout of a whole data area.
private func layoutOf(_ image: [UInt8], _ size: Int) throws -> Type2DataAreaLayout? {
    guard case .layout(let layout) = try Type2DataAreaLayout.walk(image, dataAreaSize: size) else { return nil }
    return layout
}
