public import Logging

extension PCSCContext {
    /// Establishes a context, runs `body` with it and releases it afterwards, whether `body` returns or throws:
    /// the one way a short-lived task (a CLI command, the router's start-up announcement, `doctor`) talks to
    /// pcscd. Long-lived owners (``ReaderWatcher``, the router's card reader) keep their own context.
    /// - Parameters:
    ///   - logger: the logger of the context.
    ///   - body: what to do with the context.
    /// - Returns: what `body` returns.
    /// - Throws: ``PCSCError`` when no context can be established, or what `body` throws.
    public static func withContext<T: Sendable>(
        logger: Logger, _ body: (PCSCContext) async throws -> T
    ) async throws -> T {
        let context = try await establish(logger: logger)
        do {
            let result = try await body(context)
            await context.release()
            return result
        } catch {
            await context.release()
            throw error
        }
    }
}
