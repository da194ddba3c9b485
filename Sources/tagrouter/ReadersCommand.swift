import ArgumentParser
import Foundation
import Logging
import NFCTag
import PCSC

/// `tagrouter readers`: the readers pcscd knows and what is on each.
struct ReadersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readers",
        abstract: "List the readers and the tag on each (ATR, technology, UID).",
        discussion: """
            Exit status: 0 when pcscd answered (even with no reader), 1 with one sentence on standard error when \
            it cannot be reached or refuses access.
            """)

    @Flag(help: "Print a JSON array: [{\"reader\", \"tag\": null or {\"uid\", \"tech\", \"atr\", \"error\"}}].")
    var json = false

    /// One reader and what is on it.
    struct Entry: Encodable {
        /// What is known about the tag on the reader.
        struct Tag: Encodable {
            var uid: String?
            var tech: String
            var atr: String
            /// Why the tag could not be read fully, if it could not.
            var error: String?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(uid, forKey: .uid)
                try container.encode(tech, forKey: .tech)
                try container.encode(atr, forKey: .atr)
                try container.encodeIfPresent(error, forKey: .error)
            }

            private enum CodingKeys: String, CodingKey { case uid, tech, atr, error }
        }

        var reader: String
        var tag: Tag?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(reader, forKey: .reader)
            try container.encode(tag, forKey: .tag)
        }

        private enum CodingKeys: String, CodingKey { case reader, tag }
    }

    func run() async throws {
        let logger = readerCommandsLogger()
        let entries: [Entry]
        do {
            let context = try await PCSCContext.establish(logger: logger)
            do {
                entries = try await survey(context: context)
                await context.release()
            } catch {
                await context.release()
                throw error
            }
        } catch let error as PCSCError {
            printError("\(error)")
            throw ExitCode.failure
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(entries), as: UTF8.self))
            return
        }
        if entries.isEmpty {
            print("no readers")
        }
        for entry in entries {
            guard let tag = entry.tag else {
                print("\(entry.reader): no tag")
                continue
            }
            var line = "\(entry.reader): \(tag.tech) \(tag.uid ?? "(no UID)") ATR \(tag.atr)"
            if let error = tag.error {
                line += " (\(error))"
            }
            print(line)
        }
    }

    /// Lists the readers and reads the tag on each.
    private func survey(context: PCSCContext) async throws -> [Entry] {
        let readers = try await context.readers()
        var entries: [Entry] = []
        for status in try await context.status(of: readers) {
            guard status.isCardPresent else {
                entries.append(Entry(reader: status.reader))
                continue
            }
            do {
                let report = try await TagReport.read(reader: status.reader, atr: status.atr, context: context)
                entries.append(
                    Entry(reader: status.reader, tag: .init(uid: report.uid, tech: report.tech, atr: report.atr)))
            } catch {
                let tech = ATRInfo(atr: status.atr).technology?.rawValue ?? "unknown"
                entries.append(
                    Entry(
                        reader: status.reader,
                        tag: .init(uid: nil, tech: tech, atr: hex(status.atr), error: "\(error)")))
            }
        }
        return entries
    }
}
