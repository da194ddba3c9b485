import Foundation
import Testing

@testable import TagRouterCore

/// `/proc/self/smaps` as Linux 6 writes it, cut to the lines that matter; one mapping per permission case.
private let smaps = """
    5581c0a00000-5581c0a2c000 r--p 00000000 08:01 1311 /usr/bin/tagrouter
    Size:                176 kB
    Rss:                 176 kB
    Anonymous:             0 kB
    Locked:                0 kB
    VmFlags: rd mr mw me dw sd
    5581c0a2c000-5581c2600000 r-xp 0002c000 08:01 1311 /usr/bin/tagrouter
    Rss:               15872 kB
    Anonymous:             0 kB
    Locked:                0 kB
    5581c2600000-5581c2700000 r--p 01c00000 08:01 1311 /usr/bin/tagrouter
    Rss:                1024 kB
    Anonymous:           640 kB
    Locked:                0 kB
    5581c2700000-5581c2780000 rw-p 01d00000 08:01 1311 /usr/bin/tagrouter
    Rss:                 420 kB
    Anonymous:           420 kB
    5581c2780000-5581c2790000 r--p 01d80000 08:01 1311 /usr/bin/tagrouter
    Rss:                   0 kB
    Anonymous:             0 kB
    5581c2790000-5581c27a0000 r--p 01d90000 08:01 1311 /usr/bin/tagrouter
    Rss:                  64 kB
    Anonymous:             0 kB
    Locked:               64 kB
    5581c27a0000-5581c27b0000 r--p 01da0000 08:01 1311 /usr/bin/tagrouter
    Rss:                  32 kB
    Anonymous:             0 kB
    Swap:                 16 kB
    Locked:                0 kB
    7f00c0000000-7f00c0200000 r-xp 00028000 08:01 2048 /usr/lib/x86_64-linux-gnu/libc.so.6
    Rss:                1592 kB
    Anonymous:             0 kB
    7f00c1000000-7f00c1008000 r--s 00000000 08:01 4096 /var/lib/tagrouter/tagrouter.sqlite-shm
    Rss:                  32 kB
    Anonymous:             0 kB
    7f00c2000000-7f00c2100000 rw-p 00000000 00:00 0
    Rss:                1468 kB
    Anonymous:          1468 kB
    7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]
    Rss:                   8 kB
    Anonymous:             0 kB
    """

@Test func smapsMappingsAreParsed() {
    let mappings = WorkingSet.mappings(smaps: smaps)
    #expect(mappings.count == 11)
    #expect(
        mappings[1]
            == WorkingSet.Mapping(
                start: 0x5581_c0a2_c000, end: 0x5581_c260_0000, permissions: "r-xp", path: "/usr/bin/tagrouter",
                residentKiB: 15872, anonymousKiB: 0, lockedKiB: 0, swapKiB: 0))
    #expect(mappings[2].anonymousKiB == 640)
    #expect(mappings[5].lockedKiB == 64)
    #expect(mappings[6].swapKiB == 16)
    #expect(mappings[9].path == "")
    #expect(mappings[10].path == "[vdso]")
}

/// Which mappings may be given back, by start address: only private, read-only ones of a file with no anonymous
/// (relocated) page resident or swapped out, no locked page and something resident.
@Test(
    arguments: [
        (0x5581_c0a0_0000, true),  // r--p headers, .rodata: clean
        (0x5581_c0a2_c000, true),  // r-xp code
        (0x5581_c260_0000, false),  // r--p with anonymous pages: the relocated .data.rel.ro after RELRO
        (0x5581_c270_0000, false),  // rw-p data
        (0x5581_c278_0000, false),  // nothing resident
        (0x5581_c279_0000, false),  // locked
        (0x5581_c27a_0000, false),  // copied pages swapped out
        (0x7f00_c000_0000, true),  // a library's code (libc)
        (0x7f00_c100_0000, false),  // a shared mapping
        (0x7f00_c200_0000, false),  // anonymous memory
        (0x7ffd_0000_0000, false),  // the vDSO
    ] as [(UInt, Bool)])
func releasableMappings(start: UInt, released: Bool) {
    let chosen = WorkingSet.releasable(WorkingSet.mappings(smaps: smaps))
    #expect(chosen.contains { $0.start == start } == released)
}

/// The real thing, on this test process: the clean pages of its executable and libraries are given back and it
/// runs on, mapping again from the page cache what it needs (this very code among them).
@Test func filePagesAreReleasedAndTheProcessRunsOn() throws {
    #if os(Linux)
        func resident() throws -> Int {
            let text = try #require(WorkingSet.read("/proc/self/smaps"))
            return WorkingSet.releasable(WorkingSet.mappings(smaps: text)).reduce(0) { $0 + $1.residentKiB }
        }
        let before = try resident()
        let released = try #require(WorkingSet.releaseFilePages())
        #expect(released > 0)
        #expect(released >= before / 2)
        // Code and constants used after the release come back: the test goes on, and so do the libraries.
        #expect(String(decoding: [0x6F, 0x6B], as: UTF8.self) == "ok")
        #expect(try resident() < before)
    #else
        #expect(WorkingSet.releaseFilePages() == nil)
    #endif
}

/// When pages are released again: resident KiB found at successive checks after a release that left 14,000 KiB,
/// and whether each check releases (2 MiB growth, then no change over an interval).
@Test(
    arguments: [
        ([14_000, 14_100, 14_050], [false, false, false]),  // idle: no growth
        ([22_000, 22_000], [false, true]),  // a tap, then a quiet interval
        ([18_000, 22_000, 22_100], [false, false, true]),  // taps across two checks, then quiet (100 KiB of noise)
        ([22_000, 22_500, 22_600], [false, false, true]),  // 500 KiB more is not steady, 100 KiB is
        ([15_000, 15_000, 15_000], [false, false, false]),  // steady but only 1,000 KiB above the baseline
    ] as [([Int], [Bool])])
func releaseSchedule(residents: [Int], releases: [Bool]) {
    var schedule = WorkingSetTrimmer.Schedule(releasedTo: 14_000)
    var decisions: [Bool] = []
    for resident in residents { decisions.append(schedule.checked(resident: resident)) }
    #expect(decisions == releases)
}

@Test func afterAReleaseTheNewBaselineCounts() {
    var schedule = WorkingSetTrimmer.Schedule(releasedTo: 14_000)
    var decisions = [schedule.checked(resident: 22_000), schedule.checked(resident: 22_000)]
    schedule.released(resident: 14_500)
    for resident in [14_500, 16_700, 16_700] { decisions.append(schedule.checked(resident: resident)) }
    #expect(decisions == [false, true, false, false, true])
}

@Test func residentSetIsReadFromProc() throws {
    #if os(Linux)
        let resident = try #require(WorkingSet.residentKiB())
        #expect(resident > 1024)
    #else
        #expect(WorkingSet.residentKiB() == nil)
    #endif
}
