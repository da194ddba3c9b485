import Foundation
public import Logging
import ReaderFeedback

/// One vpcd slot, seen by pcscd as a reader (`Virtual PCD 00 00` on vpcd's first port, `… 00 01` on the next):
/// presenting a card there makes pcscd see a tag arrive.
public struct VirtualReader: Sendable {
    /// vpcd's host.
    public let host: String
    /// vpcd's port for this slot (Debian's default configuration: 35963).
    public let port: UInt16
    let logger: Logger

    /// Creates the reader; nothing is connected until a card is presented.
    /// - Parameters:
    ///   - host: vpcd's host.
    ///   - port: vpcd's port for the slot.
    ///   - logger: where card sessions log.
    public init(host: String = "127.0.0.1", port: UInt16 = 35963, logger: Logger) {
        self.host = host
        self.port = port
        self.logger = logger
    }

    /// Presents a card: connects to vpcd and answers it on a dedicated thread until the card is removed.
    /// - Parameters:
    ///   - card: the card.
    ///   - limit: answer only this many command APDUs, then vanish without answering the next one (a tag
    ///     ripped away mid-read); `nil` for no limit.
    ///   - timeline: where to record what the card sees and when, for latency measurements; `nil` for nothing.
    ///   - answerDelay: how long the card takes to answer each command, as a real reader and tag do (an
    ///     ACR122U with an NTAG213: about 10 ms); none by default.
    ///   - leavingFieldAfter: the tag leaves the reader's field after answering this many of its commands (a tag
    ///     pulled away mid-read, before the reader's next poll notices): the reader answers the tag's later
    ///     commands `63 00`, as an ACR122U does when the tag does not answer, and still answers its own
    ///     pseudo-APDUs; `nil` for never.
    ///   - readerCommandSeen: called on the card's thread with each of the reader's own commands as it is
    ///     answered (`tagrouter emulate --show-feedback`).
    /// - Returns: the presented card, to remove or watch.
    /// - Throws: ``VirtualTagError/connectionFailed(host:port:reason:)`` when vpcd cannot be reached.
    ///
    /// The emulated reader answers the ACR122U's pseudo-APDUs itself, as the reader's firmware does, and keeps
    /// what they showed (``PresentedCard/exchanges``, ``PresentedCard/lights``; docs/tags.md, "Reader feedback").
    public func present(
        _ card: some VirtualCard, answeringAtMost limit: Int? = nil, timeline: CardTimeline? = nil,
        answerDelay: Duration = .zero, leavingFieldAfter: Int? = nil,
        readerCommandSeen: (@Sendable (EmulatedExchange) -> Void)? = nil
    ) throws -> PresentedCard {
        let socket = try VPCDSocket.connect(host: host, port: port)
        let presented = PresentedCard(socket: socket, card: card)
        var logger = logger
        logger[metadataKey: "vpcd.port"] = "\(port)"
        let session = CardSession(
            card: card, socket: socket, limit: limit, presented: presented, timeline: timeline,
            answerDelay: answerDelay, leavesFieldAfter: leavingFieldAfter, readerCommandSeen: readerCommandSeen,
            logger: logger)
        let thread = Thread { session.run() }
        thread.name = "vpcd-card-\(port)"
        thread.start()
        logger.debug("vpcd.card.presented")
        return presented
    }
}

/// The loop that answers vpcd for one presented card.
private struct CardSession<Card: VirtualCard>: Sendable {
    let card: Card
    let socket: VPCDSocket
    let limit: Int?
    let presented: PresentedCard
    let timeline: CardTimeline?
    let answerDelay: Duration
    let leavesFieldAfter: Int?
    let readerCommandSeen: (@Sendable (EmulatedExchange) -> Void)?
    let logger: Logger

    func run() {
        var card = card
        var answered = 0
        loop: while let message = socket.receive() {
            if message.count == 1 {
                switch message[0] {
                case 0x00, 0x01, 0x02:
                    card.powerCycled()
                    timeline?.record(.powered)
                case 0x04:
                    guard socket.send(card.atr) else { break loop }
                    timeline?.record(.atr)
                default:
                    logger.debug("vpcd.control.unknown", metadata: ["vpcd.control": "\(message[0])"])
                }
                continue
            }
            if let limit, answered >= limit {
                logger.debug("vpcd.card.vanished", metadata: ["vpcd.answered": "\(answered)"])
                break
            }
            if let command = ACR122UCommand(message) {
                // The reader's firmware answers, not the tag: not counted among the tag's commands (a vanished
                // card took vpcd's connection, and so the emulated reader, with it).
                timeline?.record(.command, message)
                let response = presented.readerCommand(command, message)
                if answerDelay > .zero {
                    let (seconds, attoseconds) = answerDelay.components
                    Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
                }
                if let readerCommandSeen, let last = presented.exchanges.last { readerCommandSeen(last) }
                guard socket.send(response) else { break }
                timeline?.record(.answered, response)
                continue
            }
            timeline?.record(.command, message)
            if let leavesFieldAfter, answered >= leavesFieldAfter {
                presented.record(tagCommand: message)
                guard socket.send([0x63, 0x00]) else { break }
                timeline?.record(.answered, [0x63, 0x00])
                continue
            }
            let response = card.respond(to: message)
            if answerDelay > .zero {
                let (seconds, attoseconds) = answerDelay.components
                Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
            }
            answered += 1
            presented.answered(card, command: message)
            guard socket.send(response) else { break }
            timeline?.record(.answered, response)
        }
        timeline?.record(.gone)
        presented.ended()
        logger.debug("vpcd.card.gone")
    }
}
