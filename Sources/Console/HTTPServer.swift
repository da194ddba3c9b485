import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOCore
import NIOSSL
public import ServiceLifecycle

/// The router's one HTTP server (docs/console.md, docs/operations.md "Metrics"), on Hummingbird: `/metrics` on the
/// metrics address, the console on its own. Each is a `Service` of the router's group: it binds when run and
/// stops at graceful shutdown.
public enum HTTPServer {
    /// The metrics listener: `GET /metrics` answers the Prometheus text format; anything else is 404.
    /// - Parameters:
    ///   - host: the address.
    ///   - port: the port; 0 for any free one.
    ///   - exposition: the metrics, in Prometheus's text format.
    ///   - logger: where it logs.
    ///   - onBound: called with the port once listening.
    /// - Returns: the service.
    public static func metrics(
        host: String, port: Int, exposition: @escaping @Sendable () -> [UInt8], logger: Logger,
        onBound: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> some Service {
        let router = Router(context: BasicRequestContext.self)
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: exposition())))
        }
        let notFound = "not found: try /metrics\n"
        return Application(
            router: RouterWithFallback(router: router, text: notFound),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                logger.info("metrics.listening", metadata: ["metrics.address": "\(host):\(bound)"])
                onBound(bound)
            },
            logger: quieter(logger))
    }

    /// The console's listener (docs/console.md): over TLS when configured; writes its URL in the state directory
    /// once bound (for `tagrouter console-login`), removes it and ends the live feed at graceful shutdown.
    /// - Parameters:
    ///   - console: the console.
    ///   - onBound: called with the port once listening.
    /// - Returns: the service.
    /// - Throws: ``ConsoleError`` when the TLS files cannot be read.
    public static func console(_ console: WebConsole, onBound: @escaping @Sendable (Int) -> Void = { _ in })
        throws(ConsoleError) -> some Service
    {
        let configuration = console.configuration
        let logger = console.logger
        var server = HTTPServerBuilder.http1()
        if let certificate = configuration.certificateFile, let key = configuration.keyFile {
            do {
                let tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
                server = try .tls(.http1(), tlsConfiguration: tls)
            } catch {
                throw ConsoleError("the console's TLS files cannot be used (\(certificate), \(key)): \(error)")
            }
        }
        let application = Application(
            router: console.router(), server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? configuration.port
                let url = configuration.url(boundPort: bound)
                do {
                    try ConsoleLogin.writeURL(url, in: configuration.stateDirectory)
                } catch {
                    logger.warning(
                        "console.url_not_written: tagrouter console-login cannot print a whole link",
                        metadata: ["error": "\(error)"])
                }
                logger.info("console.listening", metadata: ["console.url": "\(url)"])
                onBound(bound)
            },
            logger: quieter(logger))
        return ConsoleService(application: application, console: console)
    }

    /// Hummingbird's own lines one level down: the router's log keeps its one line per tap.
    static func quieter(_ logger: Logger) -> Logger {
        var logger = logger
        logger.logLevel = max(logger.logLevel, .notice)
        return logger
    }
}

/// The console's application, with its end: the live feed's browsers are let go at graceful shutdown (their
/// streams would otherwise hold the server open), and the URL file goes.
struct ConsoleService<App: ApplicationProtocol>: Service {
    let application: App
    let console: WebConsole

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await application.run()
        } onGracefulShutdown: {
            console.feed.finish()
        }
        ConsoleLogin.removeURL(in: console.configuration.stateDirectory)
    }
}

/// A router whose unknown paths answer a short plain-text 404.
private struct RouterWithFallback<Context: RequestContext>: HTTPResponderBuilder {
    let router: Router<Context>
    let text: String

    func buildResponder() -> CallbackResponder<Context> {
        let responder = router.buildResponder()
        let text = text
        return CallbackResponder { (request: Request, context: Context) in
            do {
                return try await responder.respond(to: request, context: context)
            } catch let error as HTTPError where error.status == .notFound {
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
            }
        }
    }
}
