import Logging
import PCSC

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
            let context = try await PCSCContext.establish(logger: Logger(label: "test"))
            await context.release()
        } catch let error as PCSCError {
            throw HarnessError(
                "pcsc-lite in this test process cannot reach the private pcscd at \(pcscd.socketPath) (\(error)); "
                    + "libpcsclite reads PCSCLITE_CSOCK_NAME once, so a test probably established a pcsc-lite "
                    + "context outside PrivatePCSCD.withInstance before it was set")
        }
        return try await body(pcscd)
    }
}
