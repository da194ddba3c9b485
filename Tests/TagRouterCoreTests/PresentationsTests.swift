import Testing

@testable import TagRouterCore

private let door = "ACS ACR122U PICC Interface 00 00"
private let desk = "Virtual PCD 00 01"
private let tagA = TagIdentity.uid([0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80])
private let tagB = TagIdentity.uid([0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
private let t0 = ContinuousClock.now

@Test func oneDispatchPerPresentationHoweverLongTheTagRests() {
    var state = Presentations()
    guard case .read(let serial) = state.cardPresented(reader: door, eventCount: 1) else {
        Issue.record("first report must read")
        return
    }
    #expect(
        state.tagIdentified(reader: door, serial: serial, identity: tagA, cooldown: .seconds(2), now: t0) == .dispatch)
    for _ in 0..<10 {
        #expect(state.cardPresented(reader: door, eventCount: 1) == .ignore)
    }
    #expect(
        state.tagIdentified(reader: door, serial: serial, identity: tagA, cooldown: .seconds(2), now: t0) == .ignore)
}

@Test func retapWithinCooldownIsSuppressedAndAfterItDispatches() {
    var state = Presentations()
    guard case .read(let first) = state.cardPresented(reader: door, eventCount: 1) else { return }
    #expect(
        state.tagIdentified(reader: door, serial: first, identity: tagA, cooldown: .seconds(2), now: t0) == .dispatch)
    state.cardRemoved(reader: door, now: .now)
    guard case .read(let second) = state.cardPresented(reader: door, eventCount: 3) else {
        Issue.record("re-tap must read")
        return
    }
    #expect(
        state.tagIdentified(reader: door, serial: second, identity: tagA, cooldown: .seconds(2), now: t0 + .seconds(1))
            == .suppressInCooldown(since: .seconds(1))
    )
    state.cardRemoved(reader: door, now: .now)
    guard case .read(let third) = state.cardPresented(reader: door, eventCount: 5) else { return }
    #expect(
        state.tagIdentified(reader: door, serial: third, identity: tagA, cooldown: .seconds(2), now: t0 + .seconds(3))
            == .dispatch
    )
}

@Test func cooldownIsPerReaderAndPerTag() {
    var state = Presentations()
    guard case .read(let s1) = state.cardPresented(reader: door, eventCount: 1),
        case .read(let s2) = state.cardPresented(reader: desk, eventCount: 1)
    else { return }
    #expect(state.tagIdentified(reader: door, serial: s1, identity: tagA, cooldown: .seconds(2), now: t0) == .dispatch)
    #expect(state.tagIdentified(reader: desk, serial: s2, identity: tagA, cooldown: .seconds(2), now: t0) == .dispatch)
    state.cardRemoved(reader: door, now: .now)
    guard case .read(let s3) = state.cardPresented(reader: door, eventCount: 3) else { return }
    #expect(state.tagIdentified(reader: door, serial: s3, identity: tagB, cooldown: .seconds(2), now: t0) == .dispatch)
}

@Test func zeroCooldownNeverSuppresses() {
    var state = Presentations()
    for count in UInt16(1)...5 {
        guard case .read(let serial) = state.cardPresented(reader: door, eventCount: count) else {
            Issue.record("new counter must read")
            return
        }
        #expect(
            state.tagIdentified(reader: door, serial: serial, identity: tagA, cooldown: .zero, now: t0) == .dispatch)
    }
}

@Test func quickSwapBetweenPollsIsANewPresentation() {
    var state = Presentations()
    guard case .read(let first) = state.cardPresented(reader: door, eventCount: 7) else { return }
    #expect(state.tagIdentified(reader: door, serial: first, identity: tagA, cooldown: .zero, now: t0) == .dispatch)
    // No removal seen: both polls saw PRESENT, but the counter moved on.
    guard case .read(let second) = state.cardPresented(reader: door, eventCount: 9) else {
        Issue.record("a changed event counter must be a new presentation")
        return
    }
    #expect(state.tagIdentified(reader: door, serial: second, identity: tagB, cooldown: .zero, now: t0) == .dispatch)
}

@Test func readFinishingAfterRemovalDispatchesNothing() {
    var state = Presentations()
    guard case .read(let serial) = state.cardPresented(reader: door, eventCount: 1) else { return }
    state.cardRemoved(reader: door, now: .now)
    #expect(state.tagIdentified(reader: door, serial: serial, identity: tagA, cooldown: .zero, now: t0) == .ignore)
    guard case .read(let again) = state.cardPresented(reader: door, eventCount: 3) else { return }
    state.readerRemoved(reader: door, now: .now)
    #expect(state.tagIdentified(reader: door, serial: again, identity: tagA, cooldown: .zero, now: t0) == .ignore)
}

@Test func pruningKeepsMemoryBounded() {
    var state = Presentations()
    for index in 0..<10_000 {
        let count = UInt16(truncatingIfNeeded: index)
        guard case .read(let serial) = state.cardPresented(reader: door, eventCount: count) else { continue }
        let identity = TagIdentity.uid([UInt8(index & 0xFF), UInt8(index >> 8), 1, 2])
        _ = state.tagIdentified(
            reader: door, serial: serial, identity: identity, cooldown: .seconds(2), now: t0 + .seconds(index))
    }
    #expect(state.rememberedCount <= 260)
}

@Test(arguments: [
    ([UInt8]([0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]), false),
    ([0x08, 0x12, 0x34, 0x56], true),
    ([0x1A, 0x12, 0x34, 0x56], false),
    ([0x08, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC], false),
])
func randomUIDsAreKnownByContent(uid: [UInt8], isRandom: Bool) {
    let ndef: [UInt8] = [0xD1, 0x01, 0x01, 0x55, 0x00]
    #expect(TagIdentity.isRandom(uid: uid) == isRandom)
    #expect(TagIdentity(uid: uid, ndef: ndef) == (isRandom ? .content(ndef) : .uid(uid)))
    #expect(TagIdentity(uid: nil, ndef: ndef) == .content(ndef))
}

@Test func longCooldownWithANewTagEveryTapKeepsAtMostTheLimit() {
    let limit = 100
    var state = Presentations(rememberedLimit: limit)
    var last = tagA
    for index in 0..<(limit * 10) {
        let count = UInt16(truncatingIfNeeded: index * 2 + 1)
        guard case .read(let serial) = state.cardPresented(reader: door, eventCount: count) else {
            Issue.record("every tap is a new presentation")
            return
        }
        // A phone: a random UID, known by its message, which differs on every tap.
        last = TagIdentity.content([0xD1, 0x01, 0x03, 0x55, 0x04, UInt8(index & 0xFF), UInt8(index >> 8)])
        #expect(
            state.tagIdentified(
                reader: door, serial: serial, identity: last, cooldown: .seconds(86_400), now: t0 + .seconds(index))
                == .dispatch)
        state.cardRemoved(reader: door, now: .now)
    }
    #expect(state.rememberedCount <= limit + Presentations.pruneInterval)
    // The newest dispatches are the ones kept: the last tag is still in its cooldown.
    guard case .read(let again) = state.cardPresented(reader: door, eventCount: 0xFFFF) else { return }
    #expect(
        state.tagIdentified(
            reader: door, serial: again, identity: last, cooldown: .seconds(86_400), now: t0 + .seconds(limit * 10))
            == .suppressInCooldown(since: .seconds(1)))
}
