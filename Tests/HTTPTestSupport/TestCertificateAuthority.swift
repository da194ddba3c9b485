import Foundation

/// A certificate authority made for one test with `openssl`: a CA certificate, and server certificates it
/// issues for DNS names, all in a private directory.
public struct TestCertificateAuthority: Sendable {
    /// What the authority issued for a server.
    public struct Issued: Sendable {
        /// The server certificate (PEM).
        public var certificate: String
        /// Its private key (PEM).
        public var key: String
    }

    /// The directory holding the files.
    public let directory: String
    /// The CA certificate (PEM): the trust anchor a client adds.
    public let certificate: String
    let key: String

    /// Makes a new CA in a new temporary directory.
    /// - Parameter name: the CA's common name.
    /// - Returns: the authority.
    /// - Throws: when `openssl` fails (its standard error in the message).
    public static func make(name: String = "TagRouter Test CA") throws -> TestCertificateAuthority {
        let directory = NSTemporaryDirectory() + "tagrouter-ca-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let authority = TestCertificateAuthority(
            directory: directory, certificate: directory + "/ca.pem", key: directory + "/ca.key")
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", authority.key, "-out", authority.certificate, "-days", "2", "-subj", "/CN=\(name)",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        return authority
    }

    /// Issues a server certificate for a DNS name, or with `forClient` a client certificate (mutual TLS).
    /// - Parameters:
    ///   - dnsName: the name the certificate is valid for (its subjectAltName).
    ///   - forClient: whether it is a client certificate (`clientAuth`) instead of a server one.
    /// - Returns: the certificate and key files.
    /// - Throws: when `openssl` fails.
    public func issue(for dnsName: String, forClient: Bool = false) throws -> Issued {
        let base = directory + "/" + dnsName + "-" + UUID().uuidString.prefix(8)
        let issued = Issued(certificate: base + ".pem", key: base + ".key")
        let extensions = base + ".ext"
        try Data(
            """
            subjectAltName=DNS:\(dnsName)
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=\(forClient ? "clientAuth" : "serverAuth")

            """.utf8
        ).write(to: URL(fileURLWithPath: extensions))
        try Self.openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", issued.key,
            "-out", base + ".csr", "-subj", "/CN=\(dnsName)",
        ])
        try Self.openssl([
            "x509", "-req", "-in", base + ".csr", "-CA", certificate, "-CAkey", key, "-CAcreateserial",
            "-out", issued.certificate, "-days", "2", "-extfile", extensions,
        ])
        return issued
    }

    /// Removes the directory.
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CertificateError(
                "openssl \(arguments.first ?? "") failed: \(String(decoding: output, as: UTF8.self))")
        }
    }
}

/// `openssl` failed while making test certificates.
public struct CertificateError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
