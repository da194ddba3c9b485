extension PCSCError {
    /// `SCARD_E_CANCELLED`: `SCardCancel` ended a blocking call.
    public static let cancelled: UInt32 = 0x8010_0002
    /// `SCARD_E_INVALID_HANDLE`: the context or card handle is no longer valid.
    public static let invalidHandle: UInt32 = 0x8010_0003
    /// `SCARD_E_UNKNOWN_READER`: no reader has this name (any more).
    public static let unknownReader: UInt32 = 0x8010_0009
    /// `SCARD_E_TIMEOUT`: the wait ended without a change.
    public static let timeout: UInt32 = 0x8010_000A
    /// `SCARD_E_NO_SMARTCARD`: no card in the reader.
    public static let noSmartcard: UInt32 = 0x8010_000C
    /// `SCARD_F_COMM_ERROR`: the connection to pcscd broke.
    public static let commError: UInt32 = 0x8010_0013
    /// `SCARD_E_NOT_TRANSACTED`: the exchange with the card failed.
    public static let notTransacted: UInt32 = 0x8010_0016
    /// `SCARD_E_READER_UNAVAILABLE`: the reader went away.
    public static let readerUnavailable: UInt32 = 0x8010_0017
    /// `SCARD_E_NO_SERVICE`: pcscd is not running (or stopped since the context was established).
    public static let noService: UInt32 = 0x8010_001D
    /// `SCARD_E_SERVICE_STOPPED`: client library and pcscd versions do not match.
    public static let serviceStopped: UInt32 = 0x8010_001E
    /// `SCARD_E_NO_ACCESS`: access refused.
    public static let noAccess: UInt32 = 0x8010_0027
    /// `SCARD_E_NO_READERS_AVAILABLE`: there is no reader.
    public static let noReadersAvailable: UInt32 = 0x8010_002E
    /// `SCARD_W_UNRESPONSIVE_CARD`: the card does not answer.
    public static let unresponsiveCard: UInt32 = 0x8010_0066
    /// `SCARD_W_RESET_CARD`: the card was reset.
    public static let resetCard: UInt32 = 0x8010_0068
    /// `SCARD_W_REMOVED_CARD`: the card was removed.
    public static let removedCard: UInt32 = 0x8010_0069
    /// `SCARD_W_SECURITY_VIOLATION`: access refused (polkit refuses clients outside an active session).
    public static let securityViolation: UInt32 = 0x8010_006A

    /// Whether the card left (or the reader went away) during the exchange: drop the partial read.
    public var isCardGone: Bool {
        [
            PCSCError.removedCard, PCSCError.resetCard, PCSCError.notTransacted, PCSCError.readerUnavailable,
            PCSCError.commError, PCSCError.noSmartcard, PCSCError.unresponsiveCard, PCSCError.unknownReader,
        ].contains(code)
    }

    /// Whether the context is dead because pcscd stopped, restarted or cannot be reached: establish a new one.
    public var isServiceLost: Bool {
        [PCSCError.noService, PCSCError.commError, PCSCError.invalidHandle, PCSCError.serviceStopped].contains(code)
    }

    /// Whether pcscd refused this client (polkit).
    public var isAccessRefused: Bool {
        code == PCSCError.securityViolation || code == PCSCError.noAccess
    }
}
