// outbox-child: the crash-safety helper. Usage: outbox-child STATE_DIR URL COUNT
// Opens the outbox in STATE_DIR, enqueues COUNT webhooks to URL (durably), prints "queued" and then runs the
// outbox worker until killed. With COUNT 0 it only resumes what the state directory holds.
import Foundation
import Logging
import StateStore
import TagActions
import WebhookRetry

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: outbox-child STATE_DIR URL COUNT\n".utf8))
    exit(2)
}
var logger = Logger(label: "outbox-child")
logger.logLevel = .error
let outbox = try StateDatabase(directory: arguments[1], logger: logger)
let worker = OutboxWorker(
    database: outbox,
    configuration: .init(
        userAgent: "tagrouter/test",
        retryPolicy: RetryPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(300))
    ),
    logger: logger
)
for index in 0..<count {
    let eventID = EventID.make()
    try worker.enqueue(
        Delivery.webhook(
            url: arguments[2],
            body: Array("{\"n\":\(index)}".utf8),
            secret: "crash-test",
            timeout: .milliseconds(300),
            eventID: eventID,
            rule: "crash"
        )
    )
}
FileHandle.standardOutput.write(Data("queued\n".utf8))
try await worker.run()
