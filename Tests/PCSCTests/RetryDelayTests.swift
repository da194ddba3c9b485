import Logging
import Testing

@testable import PCSC

struct RetryDelayTests {
    @Test func doublesFrom100MillisecondsUpTo5SecondsThenStays() {
        var delay = RetryDelay(first: .milliseconds(100), longest: .seconds(5))
        let waits = (0..<9).map { _ in delay.next() }
        #expect(
            waits == [100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000].map { Duration.milliseconds($0) })
        delay.reset()
        #expect(delay.next() == .milliseconds(100))
    }

    @Test func watcherDefaultsAreTheDocumentedBackoff() {
        let watcher = ReaderWatcher(logger: .init(label: "test"))
        #expect(watcher.firstRetryDelay == .milliseconds(100))
        #expect(watcher.longestRetryDelay == .seconds(5))
    }
}
