internal import CPCSCLite

/// Facts about the linked pcsc-lite library.
public enum PCSCLibrary {
    /// `INFINITE` for `SCardGetStatusChange`: wait without a timeout.
    public static let infiniteTimeout = UInt32(INFINITE)
}
