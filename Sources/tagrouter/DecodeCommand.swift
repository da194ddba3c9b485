import ArgumentParser
import Foundation
import NDEF

/// `tagrouter decode`: decode NDEF bytes given as hex or in a file and print the records.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an NDEF message and print its records.",
        discussion: """
            The message comes from the HEX argument, from --file, or as hex on standard input. Hex may be \
            separated by spaces, colons, dashes or newlines.

            Exit status: 0 decoded; 1 the input is not valid hex or not a valid NDEF message (the reason, with \
            its byte offset, is printed on standard error).
            """
    )

    @Argument(help: "The message as hex, such as 'd1 01 0c 55 04 65 78 61 6d 70 6c 65 2e 63 6f 6d'.")
    var hex: String?

    @Option(help: ArgumentHelp("Read the message as raw bytes from this file.", valueName: "path"))
    var file: String?

    @Flag(help: "Print {\"records\": [...]} in the records shape of the webhook event document.")
    var json = false

    func validate() throws {
        if hex != nil && file != nil {
            throw ValidationError("Give the message as a HEX argument or with --file, not both.")
        }
    }

    func run() throws {
        let input: DecodeOutput.Input
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("cannot read file \"\(file)\"\n".utf8))
                throw ExitCode(1)
            }
            input = .bytes(Array(data))
        } else if let hex {
            input = .hex(hex)
        } else {
            input = .hex(String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))
        }
        let result = DecodeOutput.render(input, json: json)
        switch result {
        case .success(let text):
            print(text)
        case .failure(let sentence):
            FileHandle.standardError.write(Data((sentence.description + "\n").utf8))
            throw ExitCode(1)
        }
    }
}
