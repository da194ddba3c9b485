import Foundation
import Hummingbird
import JSONOutput
import NIOCore
import StateStore

extension WebConsole {
    struct LivePage {
        var layout: Layout
        var readers: [PresenceRow]
        var taps: [TapRow]
    }

    /// `GET /`: the Live page (recent taps, presence); `GET /events`: its Server-Sent Events, `tap` and `presence`.
    func addLiveRoutes(to router: Router<ConsoleContext>) {
        router.get("/") { request, _ in
            try await self.page(request) { session in
                self.render(
                    "live",
                    LivePage(
                        layout: self.layout("Live", path: "/", session: session),
                        readers: self.feed.readers.map(PresenceRow.init), taps: self.feed.recentTaps.map(TapRow.init)))
            }
        }
        router.get("/events") { request, _ in
            _ = try self.signedIn(request)
            let feed = self.feed
            let events = feed.subscribe()
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "retry: 2000\n\n" + Self.presenceEvent(feed)))
                    for await event in events {
                        switch event {
                        case .tap(let tap):
                            try await writer.write(
                                ByteBuffer(string: "event: tap\ndata: \(JSONOutput.line(TapRow(tap)))\n\n"))
                        case .presence:
                            try await writer.write(ByteBuffer(string: Self.presenceEvent(feed)))
                        }
                    }
                    try await writer.finish(nil)
                })
        }
    }

    static func presenceEvent(_ feed: LiveFeed) -> String {
        "event: presence\ndata: \(JSONOutput.line(feed.readers.map(PresenceRow.init)))\n\n"
    }
}
