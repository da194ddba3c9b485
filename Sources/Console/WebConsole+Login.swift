import Foundation
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

    struct EmptyForm: Decodable {}

    /// `GET /login` (with `?token=` from `tagrouter console-login`: a button that spends it, so that a link
    /// preview fetching the URL does not), `POST /login/link`, `POST /login` (the password), `POST /logout`.
    func addLoginRoutes(to router: Router<ConsoleContext>) {
        router.get("/login") { request, _ in
            let token = Self.query(request, as: LinkQuery.self)?.token
            return self.render(
                "login",
                LoginPage(
                    layout: Layout(title: "Sign in", path: "/login", session: nil), token: token,
                    hasPassword: self.passwordHash != nil))
        }
        router.post("/login/link") { request, context in
            var request = request
            let body = try await request.collectBody(upTo: 4096)
            guard self.limiter.admit(context.remoteAddress) else { return self.tooManyAttempts() }
            let form = try? URLEncodedFormDecoder().decode(LinkForm.self, from: String(buffer: body))
            guard let token = form?.token, let database = self.database,
                (try? database.spendConsoleLogin(tokenHash: ConsoleLogin.hash(token))) == true
            else {
                self.logger.warning("console.login_refused", metadata: ["client.address": "\(context.remoteAddress)"])
                return self.loginRefused(
                    "This sign-in link was used already, has expired or is wrong: run tagrouter console-login again.")
            }
            return self.signIn(context)
        }
        router.post("/login") { request, context in
            var request = request
            let body = try await request.collectBody(upTo: 4096)
            guard self.limiter.admit(context.remoteAddress) else { return self.tooManyAttempts() }
            let form = try? URLEncodedFormDecoder().decode(PasswordForm.self, from: String(buffer: body))
            guard let hash = self.passwordHash, let password = form?.password,
                ConsolePassword.verify(password, hash: hash)
            else {
                self.logger.warning("console.login_refused", metadata: ["client.address": "\(context.remoteAddress)"])
                return self.loginRefused("Wrong password.")
            }
            return self.signIn(context)
        }
        router.post("/logout") { request, context in
            let (session, _) = try await self.write(request, EmptyForm.self, context: context)
            self.sessions.end(session.id)
            var response = Self.redirect("/login")
            response.setCookie(self.cookie(value: "", maxAge: 0))
            return response
        }
    }

    /// The password's hash in the rules in force (`console: { passwordHash: … }`), read at each sign-in.
    var passwordHash: String? { currentRules().console?.passwordHash }

    private func signIn(_ context: ConsoleContext) -> Response {
        let session = sessions.start()
        logger.info("console.signed_in", metadata: ["client.address": "\(context.remoteAddress)"])
        var response = Self.redirect("/")
        response.setCookie(cookie(value: session.id, maxAge: configuration.sessionLifetime))
        return response
    }

    /// The session cookie: HttpOnly, SameSite=Strict, Path=/, and Secure over TLS.
    private func cookie(value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: Sessions.cookieName, value: value, maxAge: maxAge, path: "/", secure: configuration.usesTLS,
            httpOnly: true, sameSite: .strict)
    }

    private func loginRefused(_ sentence: String) -> Response {
        render(
            "login",
            LoginPage(
                layout: Layout(title: "Sign in", path: "/login", session: nil, notice: (sentence, true)), token: nil,
                hasPassword: passwordHash != nil), status: .unauthorized)
    }

    private func tooManyAttempts() -> Response {
        var response = render(
            "login",
            LoginPage(
                layout: Layout(
                    title: "Sign in", path: "/login", session: nil,
                    notice: ("Too many sign-in attempts: wait a minute.", true)), token: nil,
                hasPassword: passwordHash != nil), status: .tooManyRequests)
        response.headers[.retryAfter] = "60"
        return response
    }
}
