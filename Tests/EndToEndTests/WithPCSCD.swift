import Foundation
import Logging
import PCSC
import Testing

import struct TestSupport.HarnessError
import class TestSupport.PrivatePCSCD

/// Runs `body` with a private pcscd of its own (see `PrivatePCSCD`), after checking that pcsc-lite in this
/// process reaches it.
///
/// libpcsclite reads `PCSCLITE_CSOCK_NAME` once, at the process's first context: a test that established a
/// context before the harness set it has pointed every later context at the system socket. That is reported
/// as such instead of as a confusing `SCARD_E_NO_SERVICE` further down.
func withPCSCD<T: Sendable>(_ body: (PrivatePCSCD) async throws -> T) async throws -> T {
    try await PrivatePCSCD.withInstance { pcscd in
        do {
            // The socket exists once pcscd has bound it; it accepts a moment later (longer on a busy machine).
            var attempts = 0
            while true {
                do {
                    let context = try await PCSCContext.establish(logger: Logger(label: "test"))
                    await context.release()
                    break
                } catch let error as PCSCError where error.code == PCSCError.noService && attempts < 50 {
                    attempts += 1
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        } catch let error as PCSCError {
            throw HarnessError(
                "pcsc-lite in this test process cannot reach the private pcscd at \(pcscd.socketPath) (\(error)); "
                    + "libpcsclite reads PCSCLITE_CSOCK_NAME once, so a test probably established a pcsc-lite "
                    + "context outside PrivatePCSCD.withInstance before it was set")
        }
        return try await body(pcscd)
    }
}

extension Trait where Self == ConditionTrait {
    /// The condition of every end-to-end suite: each starts a private pcscd in a mount namespace of its own
    /// (`unshare -m`, since pcscd 1.9.9 hard-codes `/run/pcscd`), which only root may make. Run by an ordinary
    /// user, the suites are reported skipped with this reason, never passed; `make test` as root (as CI runs it)
    /// runs them all (docs/development.md, "Tests").
    static var needsRoot: Self {
        .enabled(
            if: getuid() == 0,
            "needs root: a private pcscd runs in its own mount namespace (unshare -m); run make test as root")
    }
}
