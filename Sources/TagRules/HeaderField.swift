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

    /// Whether `text` may be an HTTP field value (RFC 9110, section 5.5): no control character but horizontal tab.
    /// - Parameter text: a header value.
    /// - Returns: whether it is one.
    public static func isFieldValue(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
    }
}
