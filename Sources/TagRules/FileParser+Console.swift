import Yams

extension FileParser {
    static let consoleKeys = ["address", "certificate", "key", "passwordHash", "viewerPasswordHash"]

    /// Parses the `console:` block (docs/console.md); a second block in the rule set is an error naming the first.
    func parseConsoleBlock(_ node: Node, keyNode: Node) {
        if let first = knownConsole {
            error(keyNode, "a second 'console' block (a rule set has one; the first is at \(first))")
            return
        }
        let here = location(keyNode)
        knownConsole = here
        guard let mapping = mapping(node, "'console'") else { return }
        var block = ConsoleBlock(location: here)
        for item in entries(mapping, allowed: Self.consoleKeys, context: "in 'console'") {
            guard let (text, display) = string(item.value, "'\(item.key)'") else { continue }
            switch item.key {
            case "address":
                guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                    (0...65535).contains(port), colon != text.startIndex
                else {
                    error(item.value, "'address' '\(display)' is not HOST:PORT (write 127.0.0.1:8788)")
                    continue
                }
                var host = String(text[..<colon])
                if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                block.address = (host, port)
            case "certificate": block.certificate = text
            case "key": block.key = text
            default:
                let prefixes = ["$2a$", "$2b$", "$2y$"]
                let isViewer = item.key == "viewerPasswordHash"
                guard text.count == 60, prefixes.contains(where: text.hasPrefix) else {
                    error(
                        item.value,
                        "'\(item.key)' is not a bcrypt hash ($2b$…, 60 characters): write what tagrouter "
                            + "console-password\(isViewer ? " --viewer" : "") prints")
                    continue
                }
                if isViewer {
                    block.viewerPasswordHash = text
                } else {
                    block.passwordHash = text
                }
            }
        }
        consoleBlock = block
    }
}
