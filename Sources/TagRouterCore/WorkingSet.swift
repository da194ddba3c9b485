#if canImport(Glibc)
    import Glibc
#endif

/// The clean, read-only pages of mapped files (the executable, the shared libraries) that start-up touched, given
/// back to the kernel once the router runs (docs/development.md, "Footprint").
///
/// A page of a mapped file counts in the resident set once the process touched it, and the kernel maps 64 KiB
/// around each page fault (fault-around): start-up (argument parsing, the YAML parser, the state database's
/// migrations, TLS and SQLite initialisation, the Swift runtime's first metadata lookups) leaves most of the
/// executable's code resident although an idle router never runs it again. `madvise(MADV_DONTNEED)` on a
/// private, read-only file mapping with no copied-on-write page only drops the mapping's page-table entries: the
/// pages stay in the page cache and the next access maps them again from there, with the file's contents, which
/// are what they held. Writable mappings, mappings holding copied pages (a relocated `.data.rel.ro`, resident or
/// swapped out), locked ones, shared ones and anonymous memory are never touched.
enum WorkingSet {
    /// One mapping of `/proc/self/smaps`, with the figures the choice needs.
    struct Mapping: Equatable {
        /// The first address.
        var start: UInt
        /// The address after the last.
        var end: UInt
        /// `r-xp`, `r--p`, `rw-p`, `r--s`, …
        var permissions: String
        /// The mapped file, or `[heap]`, `[stack]`, … or empty for anonymous memory.
        var path: String
        /// Resident KiB.
        var residentKiB = 0
        /// Anonymous KiB: pages copied on write or never file-backed.
        var anonymousKiB = 0
        /// Locked KiB (`mlock`).
        var lockedKiB = 0
        /// Swapped-out KiB: anonymous pages that `Anonymous` no longer counts.
        var swapKiB = 0
    }

    /// Parses `/proc/PID/smaps` text; lines it does not know are skipped.
    /// - Parameter smaps: the file's text.
    /// - Returns: the mappings in the file's order.
    static func mappings(smaps: String) -> [Mapping] {
        var result: [Mapping] = []
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.hasSuffix(":") {
                guard !result.isEmpty, fields.count >= 2, let kib = Int(fields[1]) else { continue }
                switch first {
                case "Rss:": result[result.count - 1].residentKiB = kib
                case "Anonymous:": result[result.count - 1].anonymousKiB = kib
                case "Locked:": result[result.count - 1].lockedKiB = kib
                case "Swap:": result[result.count - 1].swapKiB = kib
                default: break
                }
                continue
            }
            let range = first.split(separator: "-")
            guard fields.count >= 5, range.count == 2, let start = UInt(range[0], radix: 16),
                let end = UInt(range[1], radix: 16)
            else { continue }
            let path = fields.count >= 6 ? fields[5...].joined(separator: " ") : ""
            result.append(Mapping(start: start, end: end, permissions: String(fields[1]), path: path))
        }
        return result
    }

    /// The mappings whose pages may be dropped: of a file, private, read-only, no anonymous page (resident or
    /// swapped out: a copied page dropped would come back as the file's bytes, unrelocated), no locked page,
    /// something resident.
    /// - Parameter mappings: every mapping of the process.
    /// - Returns: those mappings.
    static func releasable(_ mappings: [Mapping]) -> [Mapping] {
        mappings.filter {
            $0.path.hasPrefix("/") && ($0.permissions == "r-xp" || $0.permissions == "r--p") && $0.anonymousKiB == 0
                && $0.swapKiB == 0 && $0.lockedKiB == 0 && $0.residentKiB > 0
        }
    }

    /// Drops the resident pages of the process's releasable mappings (``releasable(_:)``).
    /// - Returns: the resident KiB of the mappings given back, or `nil` where `/proc` cannot tell (not Linux).
    static func releaseFilePages() -> Int? {
        #if os(Linux)
            guard let smaps = read("/proc/self/smaps") else { return nil }
            var released = 0
            for mapping in releasable(mappings(smaps: smaps)) {
                guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
                if madvise(address, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 {
                    released += mapping.residentKiB
                }
            }
            return released
        #else
            return nil
        #endif
    }

    /// The process's resident KiB (`Rss` of `/proc/self/smaps_rollup`), or `nil` where `/proc` cannot tell.
    static func residentKiB() -> Int? {
        #if os(Linux)
            guard let rollup = read("/proc/self/smaps_rollup") else { return nil }
            for line in rollup.split(separator: "\n") where line.hasPrefix("Rss:") {
                return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
            }
            return nil
        #else
            return nil
        #endif
    }

    #if os(Linux)
        /// The whole of a `/proc` file (whose size `stat` reports as 0), or `nil` when it cannot be read.
        static func read(_ path: String) -> String? {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { return nil }
                if count == 0 { break }
                bytes.append(contentsOf: chunk[..<count])
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    #endif
}
