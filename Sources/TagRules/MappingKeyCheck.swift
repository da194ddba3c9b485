import CYaml

/// Refuses mapping keys that are not scalars (an alias, a list, a mapping) before a file is composed.
///
/// Composing a mapping checks its keys for duplicates by hashing whole key nodes, so an alias key that names a
/// deeply nested anchored structure costs time exponential in its depth: a file of a few hundred bytes took
/// seconds to compose. Rules files only ever need string keys (docs/rules.md, "Value types"), so this check
/// walks libyaml's event stream once, in linear time and without expanding an alias, and reports the first
/// key that is not a scalar. Aliases as values stay allowed; ``NodeBudget`` bounds their expansion.
enum MappingKeyCheck {
    /// The first non-scalar mapping key of `text`, at libyaml's start mark (1-based line and column), or nil.
    /// A YAML syntax error ends the scan with nil: composing the file reports it.
    static func firstProblem(in text: String) -> (line: Int, column: Int, message: String)? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            // One entry per open collection: for a mapping, whether its next node is a key.
            var expectsKey: [Bool?] = []
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                let type = event.type
                switch type {
                case YAML_STREAM_END_EVENT:
                    return nil
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    expectsKey.removeLast()
                    continue
                case YAML_ALIAS_EVENT, YAML_SCALAR_EVENT, YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    break
                default:
                    continue
                }
                if let last = expectsKey.last, let isKey = last {
                    if isKey, type != YAML_SCALAR_EVENT {
                        let what =
                            type == YAML_ALIAS_EVENT
                            ? "an alias (aliases may only be values)"
                            : type == YAML_SEQUENCE_START_EVENT ? "a list" : "a mapping"
                        return (
                            Int(event.start_mark.line) + 1, Int(event.start_mark.column) + 1,
                            "a mapping key must be a string, not \(what)"
                        )
                    }
                    expectsKey[expectsKey.count - 1] = !isKey
                }
                if type == YAML_SEQUENCE_START_EVENT { expectsKey.append(nil) }
                if type == YAML_MAPPING_START_EVENT { expectsKey.append(true) }
            }
        }
    }
}
