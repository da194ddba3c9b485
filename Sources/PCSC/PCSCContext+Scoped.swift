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

extension PCSCContext {
    /// Connects to the card in `reader` on the context's thread (``withThread(_:)``), runs `body` with the
    /// connection and disconnects afterwards, whether `body` returns or throws: how a command (`write`,
    /// `write --sun`) works on one card.
    /// - Parameters:
    ///   - reader: the reader's name.
    ///   - body: what to do with the card.
    /// - Returns: what `body` returns.
    /// - Throws: ``PCSCError`` when the connection fails, or what `body` throws.
    public func withConnection<T>(to reader: String, _ body: (CardConnection) async throws -> T) async throws -> T {
        try await withThread {
            let connection = try await connect(to: reader)
            do {
                let result = try await body(connection)
                await connection.disconnect()
                return result
            } catch {
                await connection.disconnect()
                throw error
            }
        }
    }
}
