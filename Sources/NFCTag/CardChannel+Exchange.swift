extension CardChannel {
    /// Sends a command and checks that a status word came back.
    ///
    /// Any error from `transmit` means the tag is gone (docs/tags.md, "When something fails": every driver reports removal differently),
    /// so it becomes `NFCTagError.tagRemoved` with the original as cause; cancellation passes through as is.
    /// - Parameter command: the command APDU.
    /// - Returns: the response, at least two bytes long.
    /// - Throws: `NFCTagError` (`tagRemoved`, `unexpectedResponse`), or `CancellationError`.
    package func exchange(_ command: [UInt8]) async throws -> ResponseAPDU {
        let bytes: [UInt8]
        do {
            bytes = try await transmit(command)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw NFCTagError(.tagRemoved, "tag removed during \(CommandName.describe(command))", cause: error)
        }
        guard bytes.count >= 2 else {
            throw NFCTagError(
                .unexpectedResponse,
                "\(CommandName.describe(command)) answered \(bytes.count) byte(s), no status word")
        }
        return ResponseAPDU(bytes: bytes)
    }

    /// Sends a command that must succeed.
    /// - Parameter command: the command APDU.
    /// - Returns: the response, whose status is `90 00`.
    /// - Throws: `NFCTagError` (`tagRemoved`, `unexpectedResponse`, `unexpectedStatus`), or `CancellationError`.
    package func exchangeExpectingSuccess(_ command: [UInt8]) async throws -> ResponseAPDU {
        let response = try await exchange(command)
        guard response.isSuccess else { throw CommandName.unexpectedStatus(command, response) }
        return response
    }
}
