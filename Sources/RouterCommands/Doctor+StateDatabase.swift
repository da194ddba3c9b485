import StateStore

extension Doctor {
    /// The corrupt state databases the router moved aside (`tagrouter.sqlite.corrupt-…`), one warning for them
    /// all until they are deleted; nothing when there are none (docs/operations.md, "A corrupt state database").
    /// - Parameter stateDirectory: the state directory.
    /// - Returns: no check, or one warning naming the files and how to recover what they hold.
    static func corruptDatabaseChecks(stateDirectory: String) -> [DoctorCheck] {
        let files = StateDirectory.corruptDatabases(in: stateDirectory)
        guard let last = files.last else { return [] }
        let detail =
            files.count == 1
            ? "the router found the database corrupt, moved it aside as \(last) and started a fresh one"
            : "the router found the database corrupt \(files.count) times and moved it aside as "
                + files.joined(separator: ", ") + "; the newest is \(last)"
        return [
            DoctorCheck(
                name: "state database", status: .warning, detail: detail,
                fix: "the pending webhooks, MQTT publications and SUN counters it held are not in the fresh one: "
                    + "recover them as docs/operations.md, \"A corrupt state database\", says, then delete "
                    + (files.count == 1 ? "the file" : "the files") + " (with -wal and -shm)")
        ]
    }
}
