import Testing

@testable import PCSC

/// The watcher's state machine, fed reader lists and `SCardGetStatusChange` results by hand.
struct WatchStateTests {
    static let present: UInt32 = 0x0020
    static let empty: UInt32 = 0x0010
    static let changed: UInt32 = 0x0002
    static let mute: UInt32 = 0x0200
    static let pnp = ReaderState.plugAndPlayName

    func state(_ name: String, _ eventState: UInt32, atr: [UInt8] = []) -> ReaderState {
        ReaderState(name: name, currentState: 0, eventState: eventState, atr: atr)
    }

    @Test func listingReportsAddedThenRemovedReadersWithTheirCards() {
        var watch = WatchState()
        #expect(watch.readersListed(["A", "B"]) == [.readerAdded("A"), .readerAdded("B")])
        _ = watch.statesChanged([state("A", Self.present | 0x1_0000, atr: [0x3B])])
        #expect(
            watch.readersListed(["B", "C"]) == [.cardRemoved(reader: "A"), .readerRemoved("A"), .readerAdded("C")])
        #expect(watch.readers.map(\.name) == ["B", "C"])
        #expect(watch.statesToWatch().map(\.name) == [Self.pnp, "B", "C"])
    }

    @Test(arguments: [
        // (before, after, events)
        (Self.empty, Self.present | 0x1_0000, ["presented 1"]),
        (Self.present | 0x1_0000, Self.empty | 0x2_0000, ["removed"]),
        (Self.present | 0x1_0000, Self.present | 0x3_0000, ["removed", "presented 3"]),
        (Self.present | 0x1_0000, Self.present | 0x1_0000 | 0x100, []),
        (Self.empty, Self.present | Self.mute | 0x1_0000, []),
        (Self.empty, Self.empty, []),
    ])
    func cardEventsFollowPresenceAndTheEventCounter(before: UInt32, after: UInt32, expected: [String]) {
        var watch = WatchState()
        _ = watch.readersListed(["A"])
        _ = watch.statesChanged([state("A", before, atr: [0x3B, 0x01])])
        let (events, relist) = watch.statesChanged([state("A", after | Self.changed, atr: [0x3B, 0x02])])
        let described = events.map { event -> String in
            switch event {
            case .cardPresented(let reader, let atr, let count):
                #expect(reader == "A")
                #expect(atr == [0x3B, 0x02])
                return "presented \(count)"
            case .cardRemoved(let reader):
                #expect(reader == "A")
                return "removed"
            default:
                return "\(event)"
            }
        }
        #expect(described == expected)
        #expect(!relist)
        #expect(watch.statesToWatch()[1].currentState == after)
    }

    @Test func plugAndPlayChangeAsksForANewReaderList() {
        var watch = WatchState()
        _ = watch.readersListed(["A"])
        let (events, relist) = watch.statesChanged([state(Self.pnp, 0x2_0000 | Self.changed)])
        #expect(events.isEmpty)
        #expect(relist)
        #expect(watch.statesToWatch()[0].currentState == 0x2_0000)
    }

    @Test func aReaderGoingUnknownAsksForANewReaderList() {
        var watch = WatchState()
        _ = watch.readersListed(["A"])
        _ = watch.statesChanged([state("A", Self.present)])
        let (events, relist) = watch.statesChanged([state("A", 0x0004 | Self.changed)])
        #expect(events == [.cardRemoved(reader: "A")])
        #expect(relist)
    }

    @Test func serviceLostReportsTheLossThenEverythingGone() {
        var watch = WatchState()
        _ = watch.readersListed(["A", "B"])
        _ = watch.statesChanged([state(Self.pnp, 0x2_0000), state("B", Self.present | 0x5_0000)])
        let error = PCSCError(call: "SCardGetStatusChange", code: PCSCError.noService)
        #expect(
            watch.serviceLost(error) == [
                .serviceLost(error), .readerRemoved("A"), .cardRemoved(reader: "B"), .readerRemoved("B"),
            ])
        #expect(watch.statesToWatch() == [ReaderState(name: Self.pnp, currentState: 0)])
        #expect(watch.readersListed(["A"]) == [.readerAdded("A")])
    }

    @Test func multiStringSplitsOnNul() {
        let bytes = Array("Virtual PCD 00 00\0Virtual PCD 00 01\0\0".utf8)
        #expect(PCSCContext.splitMultiString(bytes) == ["Virtual PCD 00 00", "Virtual PCD 00 01"])
        #expect(PCSCContext.splitMultiString([0, 0]) == [])
    }
}
