import Yams

/// Counts YAML nodes with an early stop, so that alias bombs are refused before they are walked.
enum NodeBudget {
    static func exceeds(_ root: Node, limit: Int) -> Bool {
        var remaining = limit
        func visit(_ node: Node) -> Bool {
            remaining -= 1
            if remaining < 0 { return true }
            switch node {
            case .mapping(let mapping):
                for (key, value) in mapping where visit(key) || visit(value) { return true }
            case .sequence(let sequence):
                for item in sequence where visit(item) { return true }
            default: break
            }
            return false
        }
        return visit(root)
    }
}
