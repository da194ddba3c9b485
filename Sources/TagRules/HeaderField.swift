/// One HTTP header.
public struct HeaderField: Sendable, Hashable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String

    /// Creates a header.
    /// - Parameters:
    ///   - name: the name.
    ///   - value: the value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
