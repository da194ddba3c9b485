import Foundation
import HTTPTestSupport
import TestSupport
import Testing

/// `tagrouter run --console` refusing what is unsafe, and `tagrouter console-login` with no console, through the
/// built binary (docs/console.md).
@Suite struct ConsoleCommandTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "console-command-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path + "/rules", withIntermediateDirectories: true)
        try "version: 1\nrules: []\n".write(toFile: path + "/rules/r.yaml", atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [
        (
            ["--console", "0.0.0.0:8788"],
            "the console's address 0.0.0.0:8788 is not loopback: the console refuses to serve it without TLS; give "
                + "--console-certificate FILE and --console-key FILE (or certificate: and key: in the console: "
                + "block), or listen on 127.0.0.1 behind a reverse proxy (docs/operations.md, \"The web console\")"
        ),
        (
            ["--console", "127.0.0.1:0", "--console-key", "/nonexistent.key"],
            "the console's TLS needs a certificate and a key (--console-certificate and --console-key, or "
                + "certificate: and key: in the console: block); only one is given"
        ),
    ])
    func runRefusesAConsoleItCannotServeSafely(arguments: [String], error: String) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = try await TagRouterBinary.run(
            ["run", "--rules", directory + "/rules", "--state-dir", directory + "/state"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "PCSCLITE_CSOCK_NAME": directory + "/no-pcscd"])
        #expect(output.status == 1)
        #expect(output.standardError.contains(error), "\(output.standardError)")
    }

    @Test func consoleLoginWithoutARunningConsoleSaysWhatToDo() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = try await TagRouterBinary.run(
            ["console-login", "--state-dir", directory + "/state"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(output.status == 1)
        #expect(
            output.standardError
                == "no console is running with the state directory \(directory)/state: start tagrouter run --console "
                + "127.0.0.1:8788 (with the same --state-dir), or pass the router's --state-dir\n")
    }
}

/// The console over TLS through the built router, checked with curl (docs/console.md, "Safe by default"): HTTPS
/// only, `Strict-Transport-Security`, and a `Secure` session cookie; with no pcscd, the router waits for it and
/// serves the console meanwhile.
@Suite struct ConsoleTLSTests {
    @Test func theConsoleServesHTTPSAndItsCookieIsSecure() async throws {
        let directory = try ConsoleCommandTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let openssl = try await TagRouterBinary.run(
            program: "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/key.pem", "-out",
                directory + "/cert.pem", "-days", "1", "-subj", "/CN=localhost",
            ], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(30))
        #expect(openssl.status == 0, "\(openssl.standardError)")
        let port = try await HTTPTestServer.freePort()
        let environment = ["PATH": "/usr/bin:/bin", "PCSCLITE_CSOCK_NAME": directory + "/no-pcscd"]
        let router = try RouterProcess(
            arguments: [
                "--rules", directory + "/rules", "--state-dir", directory + "/state", "--console", "127.0.0.1:\(port)",
                "--console-certificate", directory + "/cert.pem", "--console-key", directory + "/key.pem",
            ], environment: environment, directory: directory)
        try await router.waitForLog("console.listening")
        let url = "https://127.0.0.1:\(port)"
        #expect(try String(contentsOfFile: directory + "/state/console-url", encoding: .utf8) == url + "\n")
        func curl(_ arguments: [String]) async throws -> TagRouterBinary.Output {
            try await TagRouterBinary.run(
                program: "/usr/bin/curl", ["-sk", "-D", "-", "-o", "/dev/null"] + arguments, environment: environment,
                timeout: .seconds(20))
        }
        let page = try await curl([url + "/login"])
        #expect(page.standardOutput.hasPrefix("HTTP/1.1 200 OK"))
        #expect(page.standardOutput.contains("Strict-Transport-Security: max-age=31536000"))
        let login = try await TagRouterBinary.run(
            ["console-login", "--state-dir", directory + "/state"], environment: environment)
        let token = try #require(login.standardOutput.split(separator: "=").last).trimmingCharacters(in: .newlines)
        // As the link's page does: its CSRF cookie (in curl's jar) and the field made for it.
        let form = try await TagRouterBinary.run(
            program: "/usr/bin/curl", ["-sk", "-c", directory + "/jar", url + "/login?token=\(token)"],
            environment: environment, timeout: .seconds(20))
        let field = try #require(
            form.standardOutput.components(separatedBy: #"name="login" value=""#).dropFirst().first?.prefix {
                $0 != "\""
            })
        let signedIn = try await curl([
            "-b", directory + "/jar", "-d", "login=\(field)&token=\(token)", url + "/login/link",
        ])
        #expect(signedIn.standardOutput.hasPrefix("HTTP/1.1 303 See Other"))
        let cookie = try #require(
            signedIn.standardOutput.split(separator: "\r\n").first { $0.hasPrefix("Set-Cookie: tagrouter_session=") })
        // The attributes come in any order.
        let attributes = Set(cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(attributes.isSuperset(of: ["Secure", "HttpOnly", "SameSite=Strict", "Path=/"]), "\(cookie)")
        // Plain HTTP gets no answer from a TLS listener.
        let plain = try await TagRouterBinary.run(
            program: "/usr/bin/curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/login"],
            environment: environment, timeout: .seconds(20))
        #expect(plain.standardOutput != "200")
        let (status, _) = try await router.terminate()
        #expect(status == 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/state/console-url"))
    }
}
