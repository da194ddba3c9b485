// argv-recorder: a test program that writes its exact argv bytes, environment, working directory and pid as JSON
// to the file named by ARGV_RECORDER_OUT. Optional behaviour for runner tests:
//   RECORDER_SLOT_DIR=dir    create dir/<pid> while running and record how many files the directory held
//   RECORDER_HOLD_MS=n       stay this long inside the slot directory
//   RECORDER_IGNORE_TERM=1   ignore SIGTERM
//   RECORDER_SLEEP_MS=n      sleep this long after writing the record
//   RECORDER_EXIT=n          exit with this status
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func hex(_ bytes: UnsafePointer<CChar>) -> String {
    let count = strlen(bytes)
    return bytes.withMemoryRebound(to: UInt8.self, capacity: count) { pointer in
        UnsafeBufferPointer(start: pointer, count: count).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
            .joined()
    }
}

let environment = ProcessInfo.processInfo.environment
if environment["RECORDER_IGNORE_TERM"] == "1" { signal(SIGTERM, SIG_IGN) }

var argv: [String] = []
for index in 0..<Int(CommandLine.argc) {
    if let argument = CommandLine.unsafeArgv[index] { argv.append(hex(argument)) }
}
var variables: [String: String] = [:]
var cursor = environ
while let entry = cursor.pointee {
    let text = String(cString: entry)
    if let equals = text.firstIndex(of: "=") {
        let name = String(text[..<equals])
        entry.advanced(by: name.utf8.count + 1).withMemoryRebound(to: CChar.self, capacity: 1) {
            variables[name] = hex($0)
        }
    }
    cursor = cursor.advanced(by: 1)
}

var concurrent = 0
if let directory = environment["RECORDER_SLOT_DIR"] {
    let slot = "\(directory)/\(getpid())"
    _ = FileManager.default.createFile(atPath: slot, contents: nil)
    concurrent = (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
    usleep(UInt32(Int(environment["RECORDER_HOLD_MS"] ?? "0") ?? 0) * 1000)
    let after = (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
    concurrent = max(concurrent, after)
    unlink(slot)
}

let record: [String: Any] = [
    "argv": argv, "env": variables, "cwd": FileManager.default.currentDirectoryPath, "pid": Int(getpid()),
    "concurrent": concurrent,
]
if let output = environment["ARGV_RECORDER_OUT"] {
    let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
    try data.write(to: URL(fileURLWithPath: output + ".tmp"))
    rename(output + ".tmp", output)
}
if let sleepMilliseconds = Int(environment["RECORDER_SLEEP_MS"] ?? "") {
    var remaining = sleepMilliseconds
    while remaining > 0 {
        usleep(UInt32(min(remaining, 1000)) * 1000)
        remaining -= 1000
    }
}
exit(Int32(environment["RECORDER_EXIT"] ?? "0") ?? 0)
