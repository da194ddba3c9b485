/// An Android Application Record: external type `android.com:pkg`, the payload an application's package name.
public struct AndroidApplicationRecord: Sendable, Hashable {
    /// The package name, such as `com.example.app`.
    public var packageName: String

    /// Creates an Android Application Record.
    /// - Parameter packageName: the package name.
    public init(packageName: String) {
        self.packageName = packageName
    }

    /// Reads an Android Application Record.
    /// - Parameter record: an external `android.com:pkg` record (type compared case-insensitively).
    /// - Throws: ``NDEFError`` with code `invalidAndroidApplication` when the record has another type, an empty
    ///   payload, or a payload that is not UTF-8. Offsets are relative to the payload.
    public init(_ record: NDEFRecord) throws(NDEFError) {
        guard record.tnf == .external, RecordType.equalsIgnoringCase(record.type, RecordType.androidApplication)
        else {
            throw RecordLocation.standalone.error(
                .invalidAndroidApplication, at: 0, "the record is not an Android Application Record")
        }
        self.packageName = try record.payload.withUnsafeBufferPointer { payload throws(NDEFError) in
            try Self.validate(payload, at: .standalone)
            return String(decoding: payload, as: UTF8.self)
        }
    }

    /// The record.
    public var record: NDEFRecord {
        NDEFRecord(tnf: .external, type: RecordType.androidApplication, payload: Array(packageName.utf8))
    }

    /// Checks an `android.com:pkg` payload.
    static func validate(_ payload: UnsafeBufferPointer<UInt8>, at location: RecordLocation) throws(NDEFError) {
        guard !payload.isEmpty else {
            throw location.error(
                .invalidAndroidApplication, at: 0, "Android Application Record has an empty package name")
        }
        if let bad = UnicodeValidation.firstInvalidUTF8(payload) {
            throw location.error(
                .invalidAndroidApplication, at: bad, "Android Application Record package name is not valid UTF-8")
        }
    }
}
