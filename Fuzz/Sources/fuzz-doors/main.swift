import Foundation
import FuzzSupport
import NDEF
import SUNMessage
import TagRules

/// Doors' hostile inputs, the input used twice: as a tags file beside a door rule (every diagnostic located in
/// it, a rule set exactly when there is no error, names and UIDs unique), and as the query of a URI a `sun` rule
/// verifies (a match always carries a verified message of a 7-byte UID; a refusal is never `replay`, which only
/// the router's counters decide).
@_cdecl("fuzz_doors_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

let doorRules = """
    version: 1
    rules:
      - name: door
        match:
          tags: [staff]
          sun: { piccData: p, mac: m, encData: e, metaReadKey: "${META}", fileReadKey: "${FILE}" }
        when: [{ days: [mon, tue, wed, thu, fri], time: "22:00-06:00" }]
        timeZone: Europe/Berlin
        run: [/bin/true, "{sun.uid}", "{sun.counter}", "{sun.file}", "{tag.name}"]
    """

let keys = ["META": String(repeating: "0", count: 32), "FILE": String(repeating: "0", count: 32)]

/// A PICCData that decrypts with the rule's meta read key (zeros) to the event's UID, made with the primitives this
/// build has (the fuzz build's stand-ins, docs/RELIABILITY.md), so that the fuzzed rest of the query meets a message
/// whose first item is right.
let validPICCData = HexText.string(
    try! SUNCrypto.piccData(
        uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80], counter: 1, padding: [UInt8](repeating: 0, count: 5),
        metaReadKey: [UInt8](repeating: 0, count: 16)),
    uppercase: true)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let result = RuleSet.load(files: [("tags.yaml", text), ("door.yaml", doorRules)], environment: keys)
    for diagnostic in result.diagnostics {
        check(diagnostic.file == "tags.yaml" || diagnostic.severity == .warning, "an error outside the tags file")
        check(diagnostic.line >= 0 && diagnostic.column >= 0, "a negative place: \(diagnostic)")
    }
    check((result.ruleSet == nil) == result.diagnostics.contains { $0.severity == .error }, "rule set vs errors")
    let rules =
        result.ruleSet ?? (try? RuleSet.load(files: [("door.yaml", doorRules)], environment: keys).get())
    guard let rules else {
        check(false, "the door rule alone does not load")
        return 0
    }
    if result.ruleSet != nil {
        check(Set(rules.tags.entries.map(\.name)).count == rules.tags.entries.count, "a name enrolled twice")
        check(Set(rules.tags.entries.map(\.uid)).count == rules.tags.entries.count, "a UID enrolled twice")
    }
    for prefix in ["https://door.example/open?", "https://door.example/open?p=\(validPICCData)&"] {
        let event = TagEvent(uid: "04A1B2C3D4E580", reader: "Door", tech: "type4", uri: prefix + text)
        let decision = rules.decide(event, at: Date(timeIntervalSince1970: 1_800_000_000))
        if !decision.matches.isEmpty {
            check(decision.event.sun?.uid.count == 14, "a match without a verified 7-byte UID")
        }
        if let refusal = decision.refusal {
            // Only the router, with its counters, says replay.
            check(refusal.reason != .replay && refusal.rule.name == "door", "refusal \(refusal.reason)")
            check(decision.matches.isEmpty, "a refusal beside a match of the one rule")
        }
        _ = rules.explain(event)
    }
    return 0
}
