import ArgumentParser
import Foundation
import Logging
import NDEF
import VirtualTag

/// `tagrouter emulate`: present a virtual tag through vpcd, so rules can be tried with no hardware.
struct EmulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulate",
        abstract: "Present a virtual tag to pcscd through vpcd (vsmartcard's virtual reader).",
        discussion: """
            Needs pcscd with the vpcd driver (Debian: apt install pcscd vsmartcard-vpcd), which adds the readers \
            "Virtual PCD 00 00" (port 35963) and "Virtual PCD 00 01" (port 35964). The tag stays until --hold \
            runs out or Ctrl-C. Exit status: 0 after the tag was presented and removed, 1 when vpcd cannot be \
            reached or the message does not fit the tag.
            """)

    @Option(help: "A URI to put in a URI record, such as https://example.com/door.")
    var uri: String?

    @Option(help: "The NDEF message as hex (spaces and colons allowed).")
    var ndef: String?

    @Option(help: "A file holding the raw NDEF message bytes.")
    var file: String?

    @Option(help: "The tag: \(VirtualTagKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var tag: String = VirtualTagKind.ntag213.rawValue

    @Option(help: "vpcd's address (the second reader, Virtual PCD 00 01, is on the next port).")
    var vpcd: String = "127.0.0.1:35963"

    @Option(help: "How long to hold the tag, such as 500ms, 10s or 2m; without it, until Ctrl-C.")
    var hold: String?

    func validate() throws {
        let sources = [uri, ndef, file].compactMap { $0 }
        guard sources.count == 1 else {
            throw ValidationError("give exactly one of --uri, --ndef, --file")
        }
        guard VirtualTagKind(rawValue: tag) != nil else {
            throw ValidationError(
                "unknown --tag \(tag); use one of \(VirtualTagKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        _ = try address()
        if let ndef, Self.parseHex(ndef) == nil {
            throw ValidationError("--ndef is not hex: \(ndef)")
        }
        if let hold, Self.parseDuration(hold) == nil {
            throw ValidationError("--hold \(hold) is not a duration such as 500ms, 10s or 2m")
        }
    }

    func run() async throws {
        let logger = readerCommandsLogger()
        let (host, port) = try address()
        let kind = VirtualTagKind(rawValue: tag) ?? .ntag213
        do {
            let card = try kind.card(holding: try message())
            let presented = try VirtualReader(host: host, port: port, logger: logger).present(card)
            print("presenting \(kind.rawValue) on vpcd \(host):\(port)")
            if let hold, let duration = Self.parseDuration(hold) {
                await presented.hold(for: duration)
            } else {
                await presented.waitUntilGone()
            }
            print("removed after \(presented.commandCount) commands")
        } catch let error as VirtualTagError {
            printError(error.description)
            throw ExitCode.failure
        } catch let error as NDEFError {
            printError("--uri \(uri ?? ""): \(error)")
            throw ExitCode.failure
        }
    }

    private func message() throws -> [UInt8] {
        if let uri {
            return try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
        }
        if let ndef {
            return Self.parseHex(ndef) ?? []
        }
        let path = file ?? ""
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ValidationError("--file \(path): cannot be opened")
        }
        defer { try? handle.close() }
        // No tag holds more than 32 KiB: read one byte more to tell a file that is too large.
        let data = (try? handle.read(upToCount: 32_768 + 1)) ?? Data()
        guard data.count <= 32_768 else {
            throw ValidationError("--file \(path): larger than 32768 bytes, more than any tag holds")
        }
        return [UInt8](data)
    }

    private func address() throws -> (String, UInt16) {
        guard let colon = vpcd.lastIndex(of: ":"), let port = UInt16(vpcd[vpcd.index(after: colon)...]),
            colon != vpcd.startIndex
        else {
            throw ValidationError("--vpcd \(vpcd) is not HOST:PORT")
        }
        return (String(vpcd[..<colon]), port)
    }

    /// Parses `500ms`, `10s`, `1.5s`, `2m`, `1h`.
    static func parseDuration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let value = Double(text.dropLast(suffix.count)), value >= 0, value < 1e7 else { continue }
            return .milliseconds(Int64((value * scale * 1000).rounded()))
        }
        return nil
    }

    /// Parses hex with optional spaces and colons; `nil` for anything else.
    static func parseHex(_ text: String) -> [UInt8]? {
        let digits = text.filter { $0 != " " && $0 != ":" }
        guard digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
