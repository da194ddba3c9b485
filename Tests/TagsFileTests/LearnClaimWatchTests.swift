import Foundation
import Testing

@testable import TagsFile

/// The router's view of `learn`'s claim (docs/cli.md, "tagrouter learn"): what the file says now, whatever it
/// said at the last look.
@Suite struct LearnClaimWatchTests {
    func withFolder(_ body: (String) throws -> Void) throws {
        let folder = NSTemporaryDirectory() + "claim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    /// Writes a claim as `learn` does: whole, through a rename.
    func write(_ claim: LearnClaim, in folder: String) throws {
        try JSONEncoder().encode(claim).write(to: URL(fileURLWithPath: LearnClaim.path(in: folder)), options: .atomic)
    }

    @Test("none, a claim, another claim, an expired one, a malformed file, none again: each seen at the next look")
    func followsTheFile() throws {
        try withFolder { folder in
            let watch = LearnClaimWatch(folder: folder)
            let now = Date()
            #expect(watch.current(now: now) == nil)
            try write(LearnClaim(readers: ["A"], until: now.addingTimeInterval(60)), in: folder)
            #expect(watch.current(now: now)?.readers == ["A"])
            try write(LearnClaim(readers: ["B"], until: now.addingTimeInterval(60)), in: folder)
            #expect(watch.current(now: now)?.readers == ["B"])
            #expect(watch.current(now: now.addingTimeInterval(61)) == nil, "expired by the clock")
            try write(LearnClaim(readers: ["C"], until: now.addingTimeInterval(-1)), in: folder)
            #expect(watch.current(now: now) == nil, "written expired")
            try Data("{not json".utf8).write(to: URL(fileURLWithPath: LearnClaim.path(in: folder)))
            #expect(watch.current(now: now) == nil, "malformed")
            try FileManager.default.removeItem(atPath: LearnClaim.path(in: folder))
            #expect(watch.current(now: now) == nil, "removed")
        }
    }
}
