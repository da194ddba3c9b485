import Foundation
import Hummingbird
import Logging
import StateStore

extension WebConsole {
    struct DeliveryRow {
        var id: Int64
        var kind: String
        var rule: String
        var target: String
        var state: String
        var attempts: Int
        var lastError: String
        var created: String
    }

    struct DeliveriesPage {
        var layout: Layout
        var deliveries: [DeliveryRow]
    }

    struct ConfirmPage {
        struct Field {
            var name: String
            var value: String
        }

        var layout: Layout
        var question: String
        var action: String
        var fields: [Field]
        var button: String
        var back: String
    }

    struct DropQuery: Decodable {
        var id: Int64?
    }

    struct DeliveryForm: Decodable {
        var id: Int64
        var confirmed: String?
    }

    /// `GET /deliveries` (waiting and failed, targets redacted); `POST /deliveries/retry` (due now); `GET
    /// /deliveries/drop?id=` (the confirmation) and `POST /deliveries/drop` (with `confirmed=yes`).
    func addDeliveryRoutes(to router: Router<ConsoleContext>) {
        router.get("/deliveries") { request, _ in
            try await self.page(request) { session in
                var layout = self.layout("Deliveries", path: "/deliveries", session: session)
                var rows: [DeliveryRow] = []
                if let database = self.database {
                    rows = try database.unfinishedOrFailedDeliveries().map(Self.row)
                } else {
                    layout.problem = "A dry run delivers nothing."
                }
                return self.render("deliveries", DeliveriesPage(layout: layout, deliveries: rows))
            }
        }
        router.post("/deliveries/retry") { request, context in
            let (session, form) = try await self.write(request, DeliveryForm.self, context: context)
            if try self.database?.retryDeliveryNow(id: form.id) == true {
                self.wakeOutbox()
                self.sessions.notify(session.id, "Delivery \(form.id) is due now.")
            } else {
                self.sessions.notify(session.id, "No waiting or failed delivery \(form.id).", isProblem: true)
            }
            return Self.redirect("/deliveries")
        }
        router.get("/deliveries/drop") { request, _ in
            try await self.page(request) { session in
                guard let id = Self.query(request, as: DropQuery.self)?.id else {
                    throw HTTPError(.badRequest, message: "which delivery? (?id=)")
                }
                return self.render(
                    "confirm",
                    ConfirmPage(
                        layout: self.layout("Drop delivery \(id)?", path: "/deliveries", session: session),
                        question: "Delivery \(id) will never be tried again, and its row is deleted.",
                        action: "/deliveries/drop", fields: [.init(name: "id", value: "\(id)")], button: "Drop it",
                        back: "/deliveries"))
            }
        }
        router.post("/deliveries/drop") { request, context in
            let (session, form) = try await self.write(request, DeliveryForm.self, context: context)
            guard form.confirmed == "yes" else { return Self.redirect("/deliveries/drop?id=\(form.id)") }
            if try self.database?.dropDelivery(id: form.id) == true {
                self.logger.info("console.delivery_dropped", metadata: ["delivery.id": "\(form.id)"])
                self.sessions.notify(session.id, "Delivery \(form.id) was dropped.")
            } else {
                self.sessions.notify(session.id, "No waiting or failed delivery \(form.id).", isProblem: true)
            }
            return Self.redirect("/deliveries")
        }
    }

    static func row(_ delivery: Delivery) -> DeliveryRow {
        DeliveryRow(
            id: delivery.id, kind: delivery.kind.rawValue, rule: DisplayText.visible(delivery.rule),
            target: DisplayText.visible(delivery.shownTarget), state: delivery.state.rawValue,
            attempts: delivery.attempts,
            lastError: DisplayText.visible(
                delivery.lastError ?? delivery.lastStatus.map { "HTTP \($0)" } ?? ""),
            created: Timestamp.rfc3339(milliseconds: delivery.createdAt))
    }
}
