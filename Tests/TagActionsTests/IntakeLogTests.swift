import Foundation
import GRDB
import Testing

@testable import TagActions

@Suite("Intake log: deliveries accepted before they are in the database")
struct IntakeLogTests {
    static func request(_ eventID: String) -> WebhookRequest {
        WebhookRequest(
            url: "http://127.0.0.1:9/hook", body: Array("{\"e\":\"\(eventID)\"}".utf8), eventID: eventID,
            rule: "r")
    }

    static func logSize(_ directory: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: IntakeLog.path(in: directory))
        return (attributes[.size] as? Int) ?? -1
    }

    @Test("a delivery accepted but never inserted (a crash between the two writes) is inserted at the next start, once")
    func recoveredAfterCrash() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            var acceptedID: Int64 = 0
            do {
                let outbox = try Outbox(directory: directory, intakeLog: true, logger: TestEnvironment.logger)
                try outbox.insert(Self.request("stored"))
                let (delivery, owesStore) = try outbox.accept(Self.request("accepted"), now: Date())
                #expect(owesStore)
                // Counted as pending, and counting does not insert it.
                #expect(try outbox.pendingCount() == 2)
                #expect(try outbox.deliveries(eventID: "accepted").isEmpty)
                #expect(try Self.logSize(directory) > 0)
                acceptedID = delivery.id
            }  // the outbox is gone without inserting the row: as after a kill
            let reopened = try Outbox(directory: directory, intakeLog: true, logger: TestEnvironment.logger)
            let recovered = try reopened.deliveries(eventID: "accepted")
            #expect(recovered.map(\.id) == [acceptedID])
            #expect(recovered.map(\.state) == ["pending"])
            #expect(recovered.map(\.url) == ["http://127.0.0.1:9/hook"])
            #expect(try reopened.deliveries(eventID: "stored").count == 1)
            #expect(try Self.logSize(directory) == 0)
            #expect(try reopened.insert(Self.request("next")) == acceptedID + 1)
        }
    }

    @Test("rows already inserted are not inserted again from the log, even once pruned")
    func insertedRowsAreNotReplayed() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let rows = (1...3).map { index in
                DeliveryRow(
                    id: Int64(index), eventID: "e\(index)", rule: "r", url: "http://h/", method: "POST", headers: "[]",
                    contentType: "application/json", body: [UInt8(index)], secret: index == 2 ? "k" : nil,
                    timeoutMilliseconds: 1000, created: 1, deadline: 2, kind: "webhook", qos: 0, retain: false)
            }
            do {
                let outbox = try Outbox(directory: directory, logger: TestEnvironment.logger)
                for index in 1...2 { try outbox.insert(Self.request("e\(index)")) }
                try outbox.write("delete") { db in try db.execute(sql: "DELETE FROM deliveries WHERE id = 1") }
            }
            let log = rows.flatMap(IntakeLog.encode)
            #expect(FileManager.default.createFile(atPath: IntakeLog.path(in: directory), contents: Data(log)))
            let reopened = try Outbox(directory: directory, intakeLog: true, logger: TestEnvironment.logger)
            #expect(try reopened.deliveries(eventID: "e1").isEmpty)
            #expect(try reopened.deliveries(eventID: "e2").map(\.id) == [2])
            #expect(try reopened.deliveries(eventID: "e3").map(\.id) == [3])
        }
    }

    @Test("records round-trip; a torn or damaged end is reported at its byte offset and the records before it kept")
    func tornEnd() throws {
        let row = DeliveryRow(
            id: 7, eventID: "ev", rule: "rule", url: "https://x/ü", method: "PUT", headers: "[{\"name\":\"A\"}]",
            contentType: "text/plain", body: [0, 255, 10], secret: "s3cret", timeoutMilliseconds: 5000,
            created: 1_700_000_000_000, deadline: 1_700_086_400_000, kind: "mqtt", qos: 1, retain: true)
        let record = IntakeLog.encode(row)
        #expect(IntakeLog.decode(record + record).rows == [row, row])
        #expect(IntakeLog.decode(record + record).damage == nil)
        let torn = IntakeLog.decode(record + record.dropLast(3))
        #expect(torn.rows == [row])
        #expect(torn.damage?.offset == record.count)
        #expect(torn.damage?.reason.contains("cut short") == true)
        var flipped = record + record
        flipped[record.count + 20] ^= 0x01
        let damaged = IntakeLog.decode(flipped)
        #expect(damaged.rows == [row])
        #expect(damaged.damage?.reason.contains("checksum") == true)
        #expect(IntakeLog.decode(Array("garbage and more".utf8)).damage?.offset == 0)
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test("only one process may have the intake log: a second router on the state directory is refused")
    func exclusive() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let first = try Outbox(directory: directory, intakeLog: true, logger: TestEnvironment.logger)
            #expect {
                try Outbox(directory: directory, intakeLog: true, logger: TestEnvironment.logger)
            } throws: { error in
                (error as? ActionError)?.description.contains("locked by another process") == true
            }
            _ = try Outbox(directory: directory, logger: TestEnvironment.logger)  // readers need no log
            withExtendedLifetime(first) {}
        }
    }

    @Test("webhooks and MQTT publications share one id sequence and reach the table in id order")
    func oneSequence() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let outbox = try Outbox(directory: directory, intakeLog: true, logger: TestEnvironment.logger)
            let webhook = try outbox.accept(Self.request("w"), now: Date()).delivery.id
            let publication = try outbox.insert(
                MQTTPublication(topic: "t", payload: [1], eventID: "m", rule: "r"))
            #expect(publication == webhook + 1)
            #expect(try outbox.deliveries(eventID: "w").map(\.id) == [webhook])
            #expect(try outbox.deliveries(eventID: "m").map(\.id) == [publication])
        }
    }
}
