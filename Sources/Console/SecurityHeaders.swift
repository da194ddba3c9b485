import HTTPTypes
import Hummingbird

/// Adds the console's security headers to every response, errors included (docs/console.md, "Safe by default"):
/// scripts, styles and everything else from the console itself only (no inline script), no MIME sniffing, no
/// referrer, no framing, and nothing cached.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    let usesTLS: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = "default-src 'self'; base-uri 'none'; form-action 'self'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        if usesTLS { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}
