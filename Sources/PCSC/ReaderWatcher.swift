public import Logging

/// Watches every reader pcscd knows: an `AsyncSequence` of ``ReaderEvent`` that never ends on its own.
///
/// Iterating establishes a context, reports the readers and the cards already present, then waits
/// (`SCardGetStatusChange` on a dedicated thread, or on the one given, with `\\?PnP?\Notification` for reader
/// hotplug). When pcscd stops or restarts it reports ``ReaderEvent/serviceLost(_:)``, retries with backoff
/// (100 ms doubling to 5 s), reports ``ReaderEvent/serviceBack`` and carries on. Cancelling the iterating task,
/// or calling ``stop()``, ends the sequence promptly (`SCardCancel`).
///
/// A wait holds its thread until a reader changes or the wait's 2 s slice ends, so cards are read on other
/// threads (the router's card reader has one per reader).
public struct ReaderWatcher: AsyncSequence, Sendable {
    /// The element type: reader events.
    public typealias Element = ReaderEvent

    let logger: Logger
    let firstRetryDelay: Duration
    let longestRetryDelay: Duration
    /// Each wait ends after this many milliseconds without a change and starts again: a stop that lands just
    /// before a wait starts is then noticed within this time instead of never. Tests lengthen it.
    var waitSlice: UInt32 = 2_000
    let thread: BlockingThread?
    let stopSignal = WatchStop()

    /// Creates a watcher; nothing happens until it is iterated.
    /// - Parameters:
    ///   - logger: where the watcher logs.
    ///   - firstRetryDelay: the first wait before re-establishing a lost context.
    ///   - longestRetryDelay: the wait stops doubling here.
    ///   - thread: the thread to wait on; one of its own for each context by default. The router passes one it
    ///     also handles the events on, so that an event reaches it with no thread hop; nothing else may queue
    ///     work there, which would wait for the wait to end.
    public init(
        logger: Logger, firstRetryDelay: Duration = .milliseconds(100), longestRetryDelay: Duration = .seconds(5),
        thread: BlockingThread? = nil
    ) {
        self.logger = logger
        self.thread = thread
        self.firstRetryDelay = firstRetryDelay
        self.longestRetryDelay = longestRetryDelay
    }

    /// Ends every iteration of this watcher: the next call to `next()`, or the one waiting now, returns `nil`.
    ///
    /// The router calls it on graceful shutdown, so that it stops watching while the taps in progress, which
    /// cancelling its task would cancel too, finish. Pending events are dropped. A stop that lands just before a
    /// wait starts is noticed when the wait's slice ends (2 s).
    public func stop() {
        stopSignal.stop()
    }

    /// Starts watching.
    public func makeAsyncIterator() -> Iterator {
        Iterator(watcher: self)
    }

    /// Produces the events; one per iteration of the watcher.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let watcher: ReaderWatcher
        var context: PCSCContext?
        var state = WatchState()
        var pending: [ReaderEvent] = []
        var needsReaderList = true
        var isServiceLost = false
        /// Whether the next attempt to establish a context waits first: set when one failed or the service was
        /// lost, so that what that failure reports is handed over before the wait, not after it.
        var backsOffFirst = false
        /// Whether the first heartbeat, once the readers were first listed, was reported.
        var isWatching = false
        var retryDelay: RetryDelay

        init(watcher: ReaderWatcher) {
            self.watcher = watcher
            self.retryDelay = RetryDelay(first: watcher.firstRetryDelay, longest: watcher.longestRetryDelay)
        }

        /// The next event; `nil` only when the iterating task is cancelled or the watcher stopped.
        public mutating func next() async -> ReaderEvent? {
            while true {
                if watcher.stopSignal.isStopped {
                    await releaseContext()
                    return nil
                }
                if !pending.isEmpty {
                    let event = pending.removeFirst()
                    watcher.log(event)
                    return event
                }
                if Task.isCancelled {
                    await releaseContext()
                    return nil
                }
                do {
                    try await step()
                } catch {
                    // Only a cancelled sleep or wait gets here.
                    await releaseContext()
                    return nil
                }
            }
        }

        private mutating func step() async throws {
            guard let context else {
                if backsOffFirst {
                    backsOffFirst = false
                    try await backOff()
                }
                try await establish()
                return
            }
            do {
                if needsReaderList {
                    needsReaderList = false
                    pending += state.readersListed(try await context.readers())
                    if !isWatching {
                        isWatching = true
                        pending.append(.heartbeat)
                    }
                    if !pending.isEmpty { return }
                }
                let states = try await context.waitForChange(state.statesToWatch(), timeout: watcher.waitSlice)
                retryDelay.reset()
                let (events, relist) = state.statesChanged(states)
                pending += events
                needsReaderList = needsReaderList || relist
            } catch let error as PCSCError {
                try await failed(error, context: context)
            }
        }

        private mutating func releaseContext() async {
            watcher.stopSignal.waits(on: nil)
            await context?.release()
            context = nil
        }

        private mutating func establish() async throws {
            do {
                let established = try await PCSCContext.establish(logger: watcher.logger, thread: watcher.thread)
                context = established
                watcher.stopSignal.waits(on: established)
            } catch let error as PCSCError {
                if !isServiceLost {
                    isServiceLost = true
                    watcher.logger.warning("pcsc.service.lost", metadata: ["error": "\(error)"])
                    pending += state.serviceLost(error)
                }
                pending.append(.heartbeat)
                backsOffFirst = true
                return
            }
            needsReaderList = true
            if isServiceLost {
                isServiceLost = false
                watcher.logger.info("pcsc.service.back")
                pending.append(.serviceBack)
            }
        }

        private mutating func failed(_ error: PCSCError, context: PCSCContext) async throws {
            switch error.code {
            case PCSCError.timeout:
                pending.append(.heartbeat)
            case PCSCError.cancelled:
                if Task.isCancelled || watcher.stopSignal.isStopped { throw CancellationError() }
            case PCSCError.unknownReader:
                needsReaderList = true
            default:
                watcher.logger.warning("pcsc.service.lost", metadata: ["error": "\(error)"])
                await releaseContext()
                isServiceLost = true
                pending += state.serviceLost(error)
                backsOffFirst = true
            }
        }

        /// Sleeps before the next attempt to establish a context, in 100 ms steps so that ``stop()`` is noticed.
        private mutating func backOff() async throws {
            let clock = ContinuousClock()
            let end = clock.now + retryDelay.next()
            while clock.now < end {
                if watcher.stopSignal.isStopped { throw CancellationError() }
                try await Task.sleep(for: Swift.min(.milliseconds(100), end - clock.now))
            }
        }
    }

    private func log(_ event: ReaderEvent) {
        switch event {
        case .readerAdded(let reader):
            logger.debug("pcsc.reader.added", metadata: ["reader.name": "\(reader)"])
        case .readerRemoved(let reader):
            logger.debug("pcsc.reader.removed", metadata: ["reader.name": "\(reader)"])
        case .cardPresented(let reader, _, let count):
            logger.debug(
                "pcsc.card.presented", metadata: ["reader.name": "\(reader)", "reader.event_count": "\(count)"])
        case .cardRemoved(let reader):
            logger.debug("pcsc.card.removed", metadata: ["reader.name": "\(reader)"])
        case .serviceLost, .serviceBack, .heartbeat:
            break
        }
    }
}
