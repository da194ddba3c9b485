extension WorkingSetTrimmer {
    /// When to give pages back again after start-up: once the resident set has grown by `growth` since the last
    /// release (taps mapped code back) and then stayed put over a whole check interval (no tap since).
    struct Schedule: Equatable {
        /// Resident KiB right after the last release.
        var baseline: Int
        /// Resident KiB at the previous check.
        var previous: Int
        /// How much growth is worth a release, in KiB.
        var growthKiB = 2048
        /// How much change still counts as "stayed put", in KiB.
        var steadyKiB = 256

        /// After a release that left `resident` KiB.
        init(releasedTo resident: Int) {
            baseline = resident
            previous = resident
        }

        /// A check found `resident` KiB.
        /// - Returns: whether to release now.
        mutating func checked(resident: Int) -> Bool {
            defer { previous = resident }
            return abs(resident - previous) <= steadyKiB && resident - baseline >= growthKiB
        }

        /// A release left `resident` KiB.
        mutating func released(resident: Int) {
            baseline = resident
            previous = resident
        }
    }
}
