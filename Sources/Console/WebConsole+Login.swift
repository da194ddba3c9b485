import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StateStore
import TagRules

extension WebConsole {
    struct LoginPage {
        var layout: Layout
        var token: String?
        var hasPassword: Bool
        /// The sign-in CSRF field (``LoginCSRF``).
        var login: String
    }

    struct LinkForm: Decodable {
        var token: String
    }

    struct LinkQuery: Decodable {
        var token: String?
    }

    struct PasswordForm: Decodable {
        var password: String
    }

    struct LoginField: Decodable {
        var login: String?
    }

    struct EmptyForm: Decodable {}

    /// `GET /login` (with `?token=` from `tagrouter console-login`: a button that spends it, so that a link
    /// preview fetching the URL does not), `POST /login/link` (an admin session), `POST /login` (the password: an
    /// admin or a viewer session), `POST /logout`. Both sign-in posts carry the sign-in page's ``LoginCSRF`` field
    /// and cookie, checked first: without them the answer is 403, not counted as an attempt by the rate limit.
    func addLoginRoutes(to router: Router<ConsoleContext>) {
        router.get("/login") { request, _ in
            self.loginPage(request, token: Self.query(request, as: LinkQuery.self)?.token)
        }
        router.post("/login/link") { request, context in
            var request = request
            let text = String(buffer: try await request.collectBody(upTo: 4096))
            if let refused = self.refusedWithoutLoginCSRF(request, form: text, context: context) { return refused }
            guard self.limiter.admit(context.remoteAddress) else { return self.tooManyAttempts(request) }
            let form = try? URLEncodedFormDecoder().decode(LinkForm.self, from: text)
            guard let token = form?.token, let database = self.database,
                (try? database.spendConsoleLogin(tokenHash: ConsoleLogin.hash(token))) == true
            else {
                self.logger.warning("console.login_refused", metadata: ["client.address": "\(context.remoteAddress)"])
                return self.loginPage(
                    request,
                    problem:
                        "This sign-in link was used already, has expired or is wrong: run tagrouter console-login again.",
                    status: .unauthorized)
            }
            return self.signIn(.admin, context)
        }
        router.post("/login") { request, context in
            var request = request
            let text = String(buffer: try await request.collectBody(upTo: 4096))
            if let refused = self.refusedWithoutLoginCSRF(request, form: text, context: context) { return refused }
            guard self.limiter.admit(context.remoteAddress) else { return self.tooManyAttempts(request) }
            let password = (try? URLEncodedFormDecoder().decode(PasswordForm.self, from: text))?.password
            guard let password, let role = self.role(ofPassword: password) else {
                self.logger.warning("console.login_refused", metadata: ["client.address": "\(context.remoteAddress)"])
                return self.loginPage(request, problem: "Wrong password.", status: .unauthorized)
            }
            return self.signIn(role, context)
        }
        router.post("/logout") { request, context in
            let (session, _) = try await self.write(request, EmptyForm.self, context: context, allowsViewer: true)
            self.sessions.end(session.id)
            var response = Self.redirect("/login")
            response.setCookie(self.cookie(value: "", maxAge: 0))
            return response
        }
    }

    /// The password hashes in the rules in force (`console: { passwordHash: …, viewerPasswordHash: … }`), read at
    /// each sign-in.
    var passwordHashes: (admin: String?, viewer: String?) {
        let block = currentRules().console
        return (block?.passwordHash, block?.viewerPasswordHash)
    }

    /// The role a password signs in as: admin when it matches `passwordHash`, else viewer when it matches
    /// `viewerPasswordHash`; nil for neither.
    func role(ofPassword password: String) -> Role? {
        let hashes = passwordHashes
        if let hash = hashes.admin, ConsolePassword.verify(password, hash: hash) { return .admin }
        if let hash = hashes.viewer, ConsolePassword.verify(password, hash: hash) { return .viewer }
        return nil
    }

    private func signIn(_ role: Role, _ context: ConsoleContext) -> Response {
        let session = sessions.start(role)
        logger.info(
            "console.signed_in", metadata: ["client.address": "\(context.remoteAddress)", "console.role": "\(role)"])
        var response = Self.redirect("/")
        response.setCookie(cookie(value: session.id, maxAge: configuration.sessionLifetime))
        response.setCookie(loginCookie(value: "", maxAge: 0))
        return response
    }

    /// The session cookie: HttpOnly, SameSite=Strict, Path=/, and Secure over TLS.
    private func cookie(value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: Sessions.cookieName, value: value, maxAge: maxAge, path: "/", secure: configuration.usesTLS,
            httpOnly: true, sameSite: .strict)
    }

    /// The sign-in page's pre-session cookie (``LoginCSRF``): HttpOnly, SameSite=Strict, Path=/login, and Secure
    /// over TLS.
    private func loginCookie(value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: LoginCSRF.cookieName, value: value, maxAge: maxAge, path: "/login", secure: configuration.usesTLS,
            httpOnly: true, sameSite: .strict)
    }

    /// 403 with a fresh sign-in page when a sign-in post lacks the sign-in page's cookie or its field, or they do
    /// not match; nil when they do.
    private func refusedWithoutLoginCSRF(_ request: Request, form: String, context: ConsoleContext) -> Response? {
        let field = (try? URLEncodedFormDecoder().decode(LoginField.self, from: form))?.login
        guard !loginCSRF.accepts(cookie: request.cookies[LoginCSRF.cookieName]?.value, field: field) else {
            return nil
        }
        logger.warning(
            "console.login_refused",
            metadata: ["client.address": "\(context.remoteAddress)", "reason": "no sign-in CSRF cookie or field"])
        return loginPage(
            request,
            problem: "This sign-in form has expired or did not come from this console's sign-in page: sign in again "
                + "from this page.",
            status: .forbidden)
    }

    /// The sign-in page, with its pre-session cookie (the request's own, if it has one, kept for a further
    /// ``LoginCSRF/lifetime``) and the field made for it.
    private func loginPage(
        _ request: Request, token: String? = nil, problem: String? = nil, status: HTTPResponse.Status = .ok
    ) -> Response {
        let existing = request.cookies[LoginCSRF.cookieName]?.value
        let value = existing.flatMap { LoginCSRF.isWellFormed($0) ? $0 : nil } ?? Sessions.randomToken()
        let hashes = passwordHashes
        var response = render(
            "login",
            LoginPage(
                layout: Layout(
                    title: "Sign in", path: "/login", session: nil, notice: problem.map { (text: $0, isProblem: true) }),
                token: token,
                hasPassword: hashes.admin != nil || hashes.viewer != nil, login: loginCSRF.field(for: value)),
            status: status)
        response.setCookie(loginCookie(value: value, maxAge: LoginCSRF.lifetime))
        return response
    }

    private func tooManyAttempts(_ request: Request) -> Response {
        var response = loginPage(
            request, problem: "Too many sign-in attempts: wait a minute.", status: .tooManyRequests)
        response.headers[.retryAfter] = "60"
        return response
    }
}
