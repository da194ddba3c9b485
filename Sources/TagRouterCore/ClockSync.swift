import CTimex

/// Whether the kernel considers the host's clock synchronised (docs/fleet.md, "The status document"): what
/// `timedatectl` shows as "System clock synchronized", read without D-Bus from `ntp_adjtime` (the `adjtimex`
/// system call, reading only). The clock counts as synchronised when the call does not answer `TIME_ERROR` and the
/// `STA_UNSYNC` status bit is clear: an NTP daemon (systemd-timesyncd, chrony, ntpd) or PTP disciplines it and the
/// kernel's estimated error is bounded.
enum ClockSync {
    /// Whether the clock is synchronised now.
    static var isSynchronized: Bool {
        var status = timex()
        let state = ntp_adjtime(&status)
        return state != TIME_ERROR && state >= 0 && status.status & STA_UNSYNC == 0
    }
}
