import NIOCore
import NIOHTTP1
import NIOPosix
public import NIOSSL
import Synchronization
import TestSupport

/// One request as the test server received it.
public struct RecordedRequest: Sendable {
    public var method: String
    public var uri: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var receivedAt: ContinuousClock.Instant
    /// Which connection carried it: connections are numbered from 0 in the order the server accepted them.
    public var connection: Int

    /// The first value of a header, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// All values of a header.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// What the test server answers.
public enum TestResponse: Sendable {
    /// A status line, headers and body.
    case status(Int, headers: [(String, String)] = [], body: [UInt8] = [])
    /// Raw bytes written as the answer (garbage status lines), then close.
    case raw([UInt8])
    /// Close the connection without answering.
    case close
    /// Never answer (the client must time out).
    case hang
}

/// A real HTTP/1.1 server on 127.0.0.1 (SwiftNIO) that records requests and answers per a script.
public final class HTTPTestServer: Sendable {
    public typealias Script = @Sendable (_ request: RecordedRequest, _ index: Int) -> TestResponse

    public let port: Int
    private let channel: any Channel
    private let state: Mutex<[RecordedRequest]>

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
        self.state = Mutex([])
    }

    /// Starts a server on `host` and `port` (0 = a free one) answering per `script`; HTTPS when `tls` names a
    /// certificate and key (PEM files, as ``TestCertificateAuthority`` issues them), and then, with
    /// `clientCertificatesFrom` (a CA's PEM file), only for clients presenting a certificate that CA issued, and
    /// with `maximumTLSVersion` speaking no newer TLS than that.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, tls: TestCertificateAuthority.Issued? = nil,
        clientCertificatesFrom clientCA: String? = nil, maximumTLSVersion: TLSVersion? = nil,
        script: @escaping Script
    ) async throws -> HTTPTestServer {
        let recorder = Recorder(script: script)
        let sslContext = try tls.map { issued in
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(issued.certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: issued.key, format: .pem)))
            if let maximumTLSVersion {
                configuration.minimumTLSVersion = .tlsv1
                configuration.maximumTLSVersion = maximumTLSVersion
            }
            if let clientCA {
                configuration.certificateVerification = .noHostnameVerification
                configuration.trustRoots = .file(clientCA)
            }
            return try NIOSSLContext(configuration: configuration)
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(recorder: recorder, connection: recorder.nextConnection()))
                }
            }
            .bind(host: host, port: port).get()
        let server = HTTPTestServer(port: channel.localAddress!.port!, channel: channel)
        recorder.server.withLock { $0 = server }
        return server
    }

    /// The requests received so far.
    public var requests: [RecordedRequest] { state.withLock { $0 } }

    /// Waits until `count` requests arrived, or `timeout` passed.
    @discardableResult
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [RecordedRequest] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let requests = self.requests
            if requests.count >= count { return requests }
            try await Task.sleep(for: .milliseconds(10))
        }
        return requests
    }

    /// Stops listening.
    public func stop() async throws {
        try await channel.close()
    }

    fileprivate func record(_ request: RecordedRequest) -> Int {
        state.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
    }

    /// A port that was free a moment ago, below the kernel's ephemeral ports (``FreePorts``): a receiver that the
    /// test stops and starts again on it must not find it taken by some outgoing connection in between.
    public static func freePort() async throws -> Int {
        Int(try FreePorts.single())
    }
}

private final class Recorder: Sendable {
    let script: HTTPTestServer.Script
    let server = Mutex<HTTPTestServer?>(nil)
    private let connections = Mutex(0)

    init(script: @escaping HTTPTestServer.Script) {
        self.script = script
    }

    func nextConnection() -> Int {
        connections.withLock { count in
            defer { count += 1 }
            return count
        }
    }
}

private final class Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let recorder: Recorder
    let connection: Int
    var head: HTTPRequestHead?
    var body: [UInt8] = []

    init(recorder: Recorder, connection: Int) {
        self.recorder = recorder
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(let buffer):
            body += buffer.readableBytesView
        case .end:
            guard let head, let server = recorder.server.withLock({ $0 }) else { return }
            let request = RecordedRequest(
                method: head.method.rawValue,
                uri: head.uri,
                headers: head.headers.map { ($0.name, $0.value) },
                body: body,
                receivedAt: .now,
                connection: connection
            )
            let index = server.record(request)
            respond(recorder.script(request, index), context: context, keepAlive: head.isKeepAlive)
        }
    }

    private func respond(_ response: TestResponse, context: ChannelHandlerContext, keepAlive: Bool) {
        switch response {
        case .close:
            context.close(promise: nil)
        case .hang:
            break
        case .raw(let bytes):
            // Bypass the HTTP encoder: write from its position in the pipeline, straight to the socket, then close.
            let channel = context.channel
            guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
            else { return context.close(promise: nil) }
            encoder.writeAndFlush(NIOAny(channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
                channel.close(promise: nil)
            }
        case .status(let code, let extraHeaders, let body):
            var headers = HTTPHeaders(extraHeaders)
            headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
            let head = HTTPResponseHead(
                version: .http1_1, status: HTTPResponseStatus(statusCode: code), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if !body.isEmpty {
                context.write(
                    wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            }
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }
    }
}
