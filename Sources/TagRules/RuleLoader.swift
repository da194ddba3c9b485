import Foundation
import Yams

/// Loads rules sources in order, collecting every diagnostic of every file.
struct RuleLoader {
    /// The environment `${NAME}` reads, and the credentials directory it may name (``Credentials``: read at
    /// every load, so a reload reads the credentials again).
    let environment: [String: String]
    private var diagnostics: [Diagnostic] = []
    private var rules: [Rule] = []
    private var files: [String] = []
    private var ruleCount = 0
    private var knownNames: [String: SourceLocation] = [:]
    private var mqtt: MQTTSettings?
    /// Where the first `mqtt:` block is, valid or not.
    private var mqttLocation: SourceLocation?
    private var mqttActionSites: [Diagnostic] = []
    /// The `history:` block, and where the first one is, valid or not.
    private var history: HistorySettings?
    private var historyLocation: SourceLocation?
    /// The `console:` block, and where the first one is, valid or not.
    private var console: ConsoleBlock?
    private var consoleLocation: SourceLocation?
    /// The enrolled tags of the tags file.
    private var tags = KnownTags()
    /// Every file's `readers:` entries, in load order.
    private var readers: [ReaderSettings] = []
    private var readerNames: [String: SourceLocation] = [:]

    /// The name of the tags file in a rules folder (docs/doors.md, "The tags file").
    static let tagsFileName = KnownTags.fileName

    /// The largest rules file read (bigger ones are refused: they cannot be hand-written rules).
    static let maximumFileSize = 16 << 20

    init(environment: [String: String]) {
        self.environment = environment
    }

    mutating func load(sources: [String]) -> LoadResult {
        var texts: [(name: String, text: String, directory: String)] = []
        for source in sources {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
                diagnostics.append(Diagnostic(file: source, line: 0, column: 0, message: "no such file or folder"))
                continue
            }
            let paths: [String]
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: source)) ?? []
                paths = names.filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) }
                    .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                    .map { source.hasSuffix("/") ? source + $0 : source + "/" + $0 }
                if paths.allSatisfy({ ($0 as NSString).lastPathComponent == Self.tagsFileName }) {
                    diagnostics.append(
                        Diagnostic(
                            file: source, line: 0, column: 0, severity: .warning,
                            message: paths.isEmpty
                                ? "folder has no *.yaml or *.yml files"
                                : "folder has no rules files, only \(Self.tagsFileName)"))
                }
            } else {
                paths = [source]
            }
            for path in paths {
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                if let size = attributes?[.size] as? Int, size > Self.maximumFileSize {
                    diagnostics.append(
                        Diagnostic(file: path, line: 0, column: 0, message: "file is larger than 16 MiB"))
                    continue
                }
                guard let data = FileManager.default.contents(atPath: path) else {
                    diagnostics.append(Diagnostic(file: path, line: 0, column: 0, message: "cannot read the file"))
                    continue
                }
                guard let text = String(data: data, encoding: .utf8) else {
                    diagnostics.append(
                        Diagnostic(file: path, line: 0, column: 0, message: "the file is not UTF-8 text"))
                    continue
                }
                let directory = (path as NSString).deletingLastPathComponent
                texts.append((path, text, directory.isEmpty ? "." : directory))
            }
        }
        return load(texts: texts)
    }

    mutating func load(texts: [(name: String, text: String)], directory: String) -> LoadResult {
        load(texts: texts.map { ($0.name, $0.text, directory) })
    }

    /// Reads the tags file first (rules name its tags and groups), then the rules files in order.
    private mutating func load(texts: [(name: String, text: String, directory: String)]) -> LoadResult {
        let isTagsFile = { (name: String) in (name as NSString).lastPathComponent == Self.tagsFileName }
        let tagsFiles = texts.filter { isTagsFile($0.name) }
        for extra in tagsFiles.dropFirst() {
            diagnostics.append(
                Diagnostic(
                    file: extra.name, line: 0, column: 0,
                    message: "a second tags file (the first is \(tagsFiles[0].name)); keep one tags.yaml"))
        }
        if let file = tagsFiles.first { parseTags(name: file.name, text: file.text) }
        for file in texts where !isTagsFile(file.name) {
            parse(name: file.name, text: file.text, directory: file.directory)
        }
        return result()
    }

    private mutating func result() -> LoadResult {
        if let mqtt {
            // Default topics need the broker's prefix, and the block may come after the rules that use it.
            for index in rules.indices {
                rules[index].mapActions { action in
                    guard case .mqtt(var publication) = action else { return action }
                    publication.topicPrefix = mqtt.topicPrefix
                    return .mqtt(publication)
                }
            }
        } else if mqttLocation == nil {
            diagnostics += mqttActionSites
        }
        var ruleSet =
            diagnostics.containsErrors
            ? nil : RuleSet(rules: rules, files: files, mqtt: mqtt, tags: tags, readers: readers)
        ruleSet?.history = history
        ruleSet?.console = console
        return LoadResult(
            ruleSet: ruleSet,
            diagnostics: diagnostics, fileCount: files.count, ruleCount: ruleCount)
    }

    private mutating func parse(name: String, text: String, directory: String) {
        files.append(name)
        let parser = FileParser(
            file: name, directory: directory, text: text, environment: environment, knownNames: knownNames)
        parser.knownMQTT = mqttLocation
        parser.knownHistory = historyLocation
        parser.knownConsole = consoleLocation
        parser.enrolledNames = tags.namesAndGroups
        parser.readerNames = readerNames
        read(text, into: parser, parse: parser.parseFile)
        knownNames = parser.knownNames
        mqtt = mqtt ?? parser.mqttSettings
        mqttLocation = parser.knownMQTT
        history = history ?? parser.historySettings
        historyLocation = parser.knownHistory
        console = console ?? parser.consoleBlock
        consoleLocation = parser.knownConsole
        mqttActionSites += parser.mqttActionSites
        ruleCount += parser.ruleCount
        readers += parser.readers
        readerNames = parser.readerNames
        rules += parser.rules
    }

    /// Reads the tags file into ``tags``.
    private mutating func parseTags(name: String, text: String) {
        let parser = FileParser(file: name, directory: ".", text: text, environment: [:], knownNames: [:])
        read(text, into: parser, parse: parser.parseTagsFile)
        tags = KnownTags(parser.tagEntries, file: name)
        // A random UID (an NTAG 424 DNA with Random ID, a phone) never comes back: enrolling it admits nothing.
        diagnostics += tags.randomIDWarnings(text: text)
    }

    /// Checks the file's keys, composes its YAML and parses it with `parse` (a rules file or the tags file), then
    /// adds `parser`'s diagnostics, each once, in line order.
    private mutating func read(_ text: String, into parser: FileParser, parse: (Node?) -> Void) {
        // Non-scalar keys first, without composing: an alias key makes composing exponential (MappingKeyCheck).
        if let problem = MappingKeyCheck.firstProblem(in: text) {
            let (line, column) = parser.insideText(line: problem.line, column: problem.column)
            parser.report(line: line, column: column, problem.message)
        } else {
            compose(text, into: parser, parse: parse)
        }
        // Aliases make one node appear several times; report each problem once.
        var seen = Set<Diagnostic>()
        diagnostics += parser.diagnostics.filter { seen.insert($0).inserted }
            .sorted { ($0.line, $0.column) < ($1.line, $1.column) }
    }

    /// Composes the file's YAML and parses it with `parse`.
    private func compose(_ text: String, into parser: FileParser, parse: (Node?) -> Void) {
        do {
            // The basic resolver leaves every scalar a string: no regular expression per scalar (10,000 rules load
            // several times faster); booleans are recognized by FileParser.bool. The encoding is given because
            // Yams' default reads the whole process environment on every call (for YAMS_DEFAULT_ENCODING).
            let root = try Yams.compose(yaml: text, Resolver.basic, Constructor.default, .utf8)
            if let root, NodeBudget.exceeds(root, limit: 1_000_000) {
                parser.report(line: 0, column: 0, "the file has more than 1,000,000 YAML nodes (aliases expanding?)")
            } else {
                parse(root)
            }
        } catch let error as YamlError {
            parser.reportYAML(error)
        } catch {
            parser.report(line: 0, column: 0, "cannot parse YAML: \(error)")
        }
    }
}
