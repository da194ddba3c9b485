import Foundation

/// What `argv-recorder` wrote: its argv and environment as exact bytes.
struct Recording {
    var argv: [[UInt8]]
    var environment: [String: [UInt8]]
    var workingDirectory: String
    var pid: Int32
    var concurrent: Int

    /// Reads the JSON file the recorder wrote.
    init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        argv = (object["argv"] as! [String]).map(Self.bytes)
        environment = (object["env"] as! [String: String]).mapValues(Self.bytes)
        workingDirectory = object["cwd"] as! String
        pid = Int32(object["pid"] as! Int)
        concurrent = object["concurrent"] as! Int
    }

    /// An environment variable as UTF-8 text.
    func variable(_ name: String) -> String? {
        environment[name].map { String(decoding: $0, as: UTF8.self) }
    }

    private static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
