import Testing
import WebhookRetry

@testable import TagActions

/// The bookkeeping of a first attempt that starts before its delivery is written (`OutboxWorker.enqueue`).
@Suite("Handover: first attempts started before their delivery is written")
struct HandoverTests {
    static func delivery(id: Int64) -> PendingDelivery {
        PendingDelivery(
            id: id, eventID: "e\(id)", rule: "r", url: "http://127.0.0.1:9/", method: "POST", headers: [],
            contentType: "application/json", body: [], secret: nil, timeoutMilliseconds: 1000, attempts: 0,
            deadline: 0)
    }

    @Test func anOutcomeAfterTheWriteIsRecordedWhenItComes() {
        var handover = Handover()
        let token = handover.reserveFirstAttempt()
        #expect(handover.inFlight == 1)
        let hasOutcome = handover.firstAttemptAccepted(token, delivery: Self.delivery(id: 7), task: Task {})
        #expect(!hasOutcome)
        #expect(handover.busy == [7])
        #expect(handover.takeFinished().isEmpty)
        handover.firstAttemptEnded(token, result: AttemptResult(verdict: .delivered, status: 200))
        let finished = handover.takeFinished()
        #expect(finished.map(\.0.id) == [7])
        #expect(finished.map(\.1.verdict) == [.delivered])
        #expect(handover.inFlight == 0)
    }

    @Test func anOutcomeBeforeTheWriteWaitsForTheDeliveryAndItsID() {
        var handover = Handover()
        let token = handover.reserveFirstAttempt()
        handover.firstAttemptEnded(token, result: AttemptResult(verdict: .retry, error: "the router is stopping"))
        #expect(handover.takeFinished().isEmpty)
        #expect(handover.inFlight == 1)
        let hasOutcome = handover.firstAttemptAccepted(token, delivery: Self.delivery(id: 9), task: Task {})
        #expect(hasOutcome)
        let finished = handover.takeFinished()
        #expect(finished.map(\.0.id) == [9])
        #expect(finished.map(\.1.verdict) == [.retry])
        #expect(handover.inFlight == 0)
    }

    @Test func anAttemptWhoseDeliveryWasNotWrittenIsNeverRecorded() {
        var handover = Handover()
        let refused = handover.reserveFirstAttempt()
        let other = handover.reserveFirstAttempt()
        #expect(refused != other)
        handover.firstAttemptRefused(refused)
        handover.firstAttemptEnded(refused, result: AttemptResult(verdict: .delivered, status: 200))
        #expect(handover.takeFinished().isEmpty)
        #expect(handover.inFlight == 1)
        #expect(handover.busy.isEmpty)
    }
}
