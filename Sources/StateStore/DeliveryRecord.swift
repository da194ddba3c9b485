import Foundation
import GRDB
import WebhookTarget

/// A row of `deliveries` as GRDB maps it (`FetchableRecord`, `PersistableRecord`): the one place that says which
/// column holds which field of a ``Delivery``, for inserting, listing and the outbox's reads.
///
/// Nothing undecodable is smoothed over: a column that is NULL where a value is required, a kind, state or method
/// this release does not know, or headers or transport settings that are not their JSON, make reading the row
/// fail with a ``StateStoreError`` that names the row's id and the column, instead of a delivery with a guessed
/// value (a guessed `webhook` kind or `failed` state would send or drop what was meant otherwise).
struct DeliveryRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "deliveries"

    /// The delivery the row holds.
    var delivery: Delivery

    /// Wraps a delivery to insert it.
    init(_ delivery: Delivery) {
        self.delivery = delivery
    }

    init(row: Row) throws {
        let id: Int64 = try Self.column(row, "id", id: nil)
        func value<T: DatabaseValueConvertible>(_ name: String, _: T.Type = T.self) throws -> T {
            try Self.column(row, name, id: id)
        }
        func named<T>(_ name: String, _ make: (String) -> T?, _ expected: String) throws -> T {
            let text: String = try value(name)
            guard let made = make(text) else {
                throw StateStoreError("deliveries row \(id): column '\(name)' holds '\(text)', not \(expected)")
            }
            return made
        }
        func json<T: Decodable>(_ name: String, _: T.Type) throws -> T? {
            guard let text: String = try value(name) else { return nil }
            do {
                return try JSONDecoder().decode(T.self, from: Data(text.utf8))
            } catch {
                throw StateStoreError("deliveries row \(id): column '\(name)' is not valid JSON for it (\(error))")
            }
        }
        let kind = try named("kind", Delivery.Kind.init(rawValue:), "webhook or mqtt")
        let method = try named("method", { Delivery.Method(rawValue: $0) }, "a method")
        var delivery = Delivery(
            kind: kind, eventID: try value("event_id"), rule: try value("rule"), target: try value("url"),
            method: method, createdAt: Date(), retryFor: .zero)
        delivery.id = id
        delivery.headers = try json("headers", [Delivery.Header].self) ?? []
        delivery.transport = try json("transport", WebhookTransport.self)
        delivery.contentType = try value("content_type")
        delivery.body = Array(try value("body", Data?.self) ?? Data())
        delivery.secret = try value("secret")
        delivery.timeoutMilliseconds = try value("timeout_ms")
        delivery.qos = try value("qos")
        delivery.retain = try value("retain")
        delivery.state = try named("state", Delivery.State.init(rawValue:), "pending, delivered or failed")
        delivery.attempts = try value("attempts")
        delivery.lastStatus = try value("last_status")
        delivery.lastError = try value("last_error")
        delivery.createdAt = try value("created_at")
        delivery.nextAttemptAt = try value("next_attempt_at")
        delivery.deadline = try value("deadline")
        delivery.finishedAt = try value("finished_at")
        self.delivery = delivery
    }

    func encode(to container: inout PersistenceContainer) throws {
        // A new row gets its id from SQLite (`id` 0 is "none yet"); an imported one keeps its own.
        container["id"] = delivery.id == 0 ? nil : delivery.id
        container["event_id"] = delivery.eventID
        container["rule"] = delivery.rule
        container["url"] = delivery.target
        container["method"] = delivery.method.rawValue
        // Most webhooks carry no headers of their own: "[]" needs no encoder, on the path of a tap's first attempt.
        container["headers"] =
            delivery.headers.isEmpty
            ? "[]" : String(decoding: try JSONEncoder().encode(delivery.headers), as: UTF8.self)
        container["content_type"] = delivery.contentType
        container["body"] = Data(delivery.body)
        container["secret"] = delivery.secret
        container["timeout_ms"] = delivery.timeoutMilliseconds
        container["state"] = delivery.state.rawValue
        container["attempts"] = delivery.attempts
        container["created_at"] = delivery.createdAt
        container["next_attempt_at"] = delivery.nextAttemptAt
        container["deadline"] = delivery.deadline
        container["kind"] = delivery.kind.rawValue
        container["qos"] = delivery.qos
        container["retain"] = delivery.retain
        container["transport"] = try delivery.transport.map {
            String(decoding: try JSONEncoder().encode($0), as: UTF8.self)
        }
    }

    /// A column's value, or an error naming the row and the column when it is NULL where a value is required or
    /// holds something of another type.
    private static func column<T: DatabaseValueConvertible>(_ row: Row, _ name: String, id: Int64?) throws -> T {
        do {
            return try row.decode(T.self, forColumn: name)
        } catch {
            let place = id.map { "deliveries row \($0)" } ?? "a deliveries row"
            throw StateStoreError("\(place): column '\(name)' cannot be read as \(T.self) (\(error))")
        }
    }
}
