public import NFCTag
public import PCSC

/// A pcsc-lite card connection is the channel `NFCTag`'s readers and writers send their APDUs through. The
/// conformance lives here, above both modules, so that `PCSC` (pcsc-lite in Swift) and `NFCTag` (tags, through any
/// channel) stay independent of each other (docs/development.md, "Source layout").
extension CardConnection: CardChannel {}
