/// The outcome of one `tagrouter doctor` check: what was checked, what was found, and how to fix it.
public struct DoctorCheck: Sendable, Hashable, Encodable {
    /// How a check came out.
    public enum Status: String, Sendable, Hashable, Encodable {
        /// All is well.
        case ok
        /// Works, but something deserves a look.
        case warning
        /// Something stops TagRouter from working.
        case problem
    }

    /// A short name: `pcscd`, `kernel modules`, `state directory`, …
    public var name: String
    /// How it came out.
    public var status: Status
    /// What was found, one sentence.
    public var detail: String
    /// What to do about it, when the status is not ok.
    public var fix: String?

    /// Creates a check outcome.
    /// - Parameters:
    ///   - name: the check's name.
    ///   - status: how it came out.
    ///   - detail: what was found.
    ///   - fix: what to do, if anything.
    public init(name: String, status: Status, detail: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = fix
    }
}
