extension Array where Element: Sendable {
    /// Transforms every element in a task of its own, all at once, and returns the results in the array's order.
    /// Each task starts at once, in order, and runs here up to its first suspension: a tap's rules have all started
    /// their first actions when this first suspends (the reader's signal goes out then: docs/tags.md, "Reader
    /// feedback").
    /// - Parameter transform: the transformation.
    /// - Returns: the transformed elements, in order.
    func concurrentMap<Result: Sendable>(
        _ transform: @escaping @Sendable (Element) async -> Result
    ) async -> [Result] {
        // One element (one matched rule, the common tap) needs no task group and its hop.
        if count == 1 { return [await transform(self[0])] }
        return await withTaskGroup(of: (Int, Result).self) { group in
            for (index, element) in enumerated() {
                group.addImmediateTask { (index, await transform(element)) }
            }
            var results = [Result?](repeating: nil, count: count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }
}
