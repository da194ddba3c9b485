import Foundation
import HTTPTypes
public import Hummingbird
public import Logging
import Mustache
import NIOCore
public import StateStore
public import TagRules

/// The web console (docs/console.md): its pages, its live feed, its sessions. It runs in the router's process, on
/// the router's one HTTP server (``HTTPServer``), and reads what the router hands it: taps and presence through a
/// ``LiveFeed``, the rules in force, the state database, and the tags file and rule tools through their seams.
public final class WebConsole: Sendable {
    let configuration: ConsoleConfiguration
    let feed: LiveFeed
    let database: StateDatabase?
    let currentRules: @Sendable () -> RuleSet
    let tags: any ConsoleTagsEditing
    let ruleTools: any ConsoleRuleTools
    let sessions: Sessions
    let limiter: LoginLimiter
    let loginCSRF = LoginCSRF()
    let templates: MustacheLibrary
    let logger: Logger
    /// How long an enrollment waits for the tag.
    let enrollmentTimeout: Duration
    /// Wakes whoever delivers the outbox's rows (a delivery was made due now): the outbox worker for webhooks and
    /// the MQTT publisher for publications.
    let wakeOutbox: @Sendable () -> Void

    /// Creates the console.
    /// - Parameters:
    ///   - configuration: where it listens, TLS, the password hash.
    ///   - feed: the router's taps and presence.
    ///   - database: the state database; nil in a dry run (no door log, no deliveries, no one-time links).
    ///   - currentRules: the rules in force now.
    ///   - tags: the tags file's editor.
    ///   - ruleTools: `check` and `match --explain`.
    ///   - logger: where the console logs.
    ///   - loginLimiter: sign-in attempts allowed a minute, per client address and in all.
    ///   - enrollmentTimeout: how long an enrollment waits for the tag.
    ///   - wakeOutbox: wakes the outbox worker and the MQTT publisher, for a delivery made due now (`tagrouter run`
    ///     passes `OutboxWorker.wake()` and `MQTTPublisher.retryPending()`).
    /// - Throws: ``ConsoleError`` when a template does not compile.
    public init(
        configuration: ConsoleConfiguration, feed: LiveFeed, database: StateDatabase?,
        currentRules: @escaping @Sendable () -> RuleSet, tags: any ConsoleTagsEditing,
        ruleTools: any ConsoleRuleTools, logger: Logger, loginLimiter: (perAddress: Int, overall: Int) = (5, 30),
        enrollmentTimeout: Duration = .seconds(60), wakeOutbox: @escaping @Sendable () -> Void = {}
    ) throws(ConsoleError) {
        self.wakeOutbox = wakeOutbox
        self.configuration = configuration
        self.feed = feed
        self.database = database
        self.currentRules = currentRules
        self.tags = tags
        self.ruleTools = ruleTools
        self.logger = logger
        self.enrollmentTimeout = enrollmentTimeout
        sessions = Sessions(lifetime: TimeInterval(configuration.sessionLifetime))
        limiter = LoginLimiter(perAddress: loginLimiter.perAddress, overall: loginLimiter.overall)
        do {
            templates = try Templates.library()
        } catch {
            throw ConsoleError("the console's templates do not compile: \(error)")
        }
    }

    /// The console's routes, behind its security headers.
    public func router() -> Router<ConsoleContext> {
        let router = Router(context: ConsoleContext.self)
        router.add(middleware: SecurityHeaders(usesTLS: configuration.usesTLS))
        router.get("/static/console.js") { _, _ in
            Self.asset(Assets.script, type: "text/javascript; charset=utf-8")
        }
        router.get("/static/console.css") { _, _ in
            Self.asset(Assets.styleSheet, type: "text/css; charset=utf-8")
        }
        addLoginRoutes(to: router)
        addLiveRoutes(to: router)
        addHistoryRoutes(to: router)
        addTagRoutes(to: router)
        addInfoRoutes(to: router)
        addDeliveryRoutes(to: router)
        return router
    }

    // MARK: Sessions and CSRF

    /// The request's session, if its cookie names a current one.
    func session(of request: Request) -> Session? {
        sessions.session(request.cookies[Sessions.cookieName]?.value)
    }

    /// A page for a signed-in browser, else a redirect to the sign-in page.
    func page(_ request: Request, _ body: (Session) async throws -> Response) async throws -> Response {
        guard let session = session(of: request) else { return Self.redirect("/login") }
        return try await body(session)
    }

    /// Data for a signed-in browser (the live feed, an export), else 401.
    func signedIn(_ request: Request) throws -> Session {
        guard let session = session(of: request) else {
            throw HTTPError(.unauthorized, message: "sign in first (docs/console.md, \"Signing in\")")
        }
        return session
    }

    /// A write: its form, checked for a session (401), the session's CSRF token (403), as a field or the
    /// `X-CSRF-Token` header, and the session's role (403 for a viewer, unless `allowsViewer`: signing out).
    func write<Form: Decodable & Sendable>(
        _ request: Request, _ form: Form.Type, context: ConsoleContext, allowsViewer: Bool = false
    ) async throws -> (Session, Form) {
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        guard let session = session(of: request) else {
            throw HTTPError(.unauthorized, message: "sign in first (docs/console.md, \"Signing in\")")
        }
        let text = String(buffer: body)
        let token = try? URLEncodedFormDecoder().decode(CSRFField.self, from: text).csrf
        let header = request.headers[HTTPField.Name("X-CSRF-Token")!]
        guard let given = token ?? header, Self.constantTimeEqual(given, session.csrf) else {
            throw HTTPError(.forbidden, message: "the form's CSRF token is missing or wrong: reload the page")
        }
        guard allowsViewer || session.role == .admin else {
            throw HTTPError(
                .forbidden,
                message: "this session is a viewer's: it reads every page and changes nothing; sign in with the admin "
                    + "password or a tagrouter console-login link to change things (docs/console.md, \"Signing in\")")
        }
        do {
            return (session, try URLEncodedFormDecoder().decode(Form.self, from: text))
        } catch {
            throw HTTPError(.badRequest, message: "the form is incomplete: \(error)")
        }
    }

    /// A request's query as `Q` (`+` read as a space, as forms send it); an unreadable query as none.
    static func query<Q: Decodable>(_ request: Request, as type: Q.Type) -> Q? {
        try? URLEncodedFormDecoder().decode(Q.self, from: request.uri.query ?? "")
    }

    struct CSRFField: Decodable {
        var csrf: String?
    }

    static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let (a, b) = (Array(left.utf8), Array(right.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: Responses

    /// Renders a page template.
    func render(_ template: String, _ context: Any, status: HTTPResponse.Status = .ok) -> Response {
        let html = templates.render(context, withTemplate: template) ?? ""
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The layout of a page for a session, taking its pending notice.
    func layout(_ title: String, path: String, session: Session?) -> Layout {
        Layout(title: title, path: path, session: session, notice: session.flatMap { sessions.takeNotice($0.id) })
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "max-age=300"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
