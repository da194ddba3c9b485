public import Yams

/// How a YAML node is named in a diagnostic and when a scalar is YAML's null: one answer for the rules files'
/// parser and the tags file's text editor (`TagsFile`), so both say the same of the same node.
public enum YAMLNodes {
    /// The node's kind as a diagnostic names it: `null`, `a string`, `a mapping`, `a list` or `an alias`.
    /// - Parameter node: any node.
    public static func kind(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): isNull(scalar) ? "null" : "a string"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    /// Whether a scalar is YAML's null: empty, `~` or `null`, unquoted.
    /// - Parameter scalar: any scalar.
    public static func isNull(_ scalar: Node.Scalar) -> Bool {
        scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }
}
