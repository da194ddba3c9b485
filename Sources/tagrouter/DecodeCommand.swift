import ArgumentParser
import RouterCommands

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

    @Flag(
        help: """
            The input is a Type 2 tag's data area (its bytes from page 4 on, as `tagrouter read` or a dump \
            shows them): walk the TLVs (Lock/Memory Control, NULL, proprietary, terminator) and decode the \
            NDEF TLV.
            """)
    var tlv = false

    @Flag(help: "Print {\"records\": [...]} in the records shape of the webhook event document.")
    var json = false

    func validate() throws {
        if hex != nil && file != nil {
            throw ValidationError("Give the message as a HEX argument or with --file, not both.")
        }
    }

    func run() throws {
        try DecodeOutput.output(hex: hex, file: file, json: json, tlv: tlv).finish()
    }
}
