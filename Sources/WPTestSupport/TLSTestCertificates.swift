import Foundation

/// A throwaway PKI made with the `openssl` command in a temporary directory: a CA, a server
/// certificate for 127.0.0.1 signed by it, a client certificate signed by it, and a client
/// certificate signed by another CA.
///
/// ```swift
/// let pki = try TLSTestCertificates.make()
/// defer { pki.remove() }
/// var tls = WPTLSConfiguration(certificateFile: pki.serverCertificate, keyFile: pki.serverKey)
/// ```
package struct TLSTestCertificates: Sendable {
    /// The directory holding every file.
    package let directory: String

    package var caCertificate: String { directory + "/ca.crt" }
    package var serverCertificate: String { directory + "/server.crt" }
    package var serverKey: String { directory + "/server.key" }
    package var clientCertificate: String { directory + "/client.crt" }
    package var clientKey: String { directory + "/client.key" }
    package var strangerCertificate: String { directory + "/stranger.crt" }
    package var strangerKey: String { directory + "/stranger.key" }

    /// The `openssl` executable, nil when not installed (tests skip, saying so).
    package static let openssl = TLSTestTools.executable("openssl")
    /// The `curl` executable, nil when not installed.
    package static let curl = TLSTestTools.executable("curl")

    /// Generates the CA, server (common name `server-1`), client and stranger certificates.
    package static func make() throws -> TLSTestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wpexporter-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pki = TLSTestCertificates(directory: directory)
        try pki.makeCA("ca", name: "wpexporter test CA")
        try pki.makeCA("other-ca", name: "another CA")
        try pki.issue("server", commonName: "server-1", by: "ca", serverName: "127.0.0.1")
        try pki.issue("client", commonName: "prometheus", by: "ca", serverName: nil)
        try pki.issue("stranger", commonName: "prometheus", by: "other-ca", serverName: nil)
        return pki
    }

    /// Issues a new server certificate and key with `commonName` and moves them over the old
    /// files (a rename, like certificate renewal tools do).
    package func reissueServer(commonName: String) throws {
        try issue("server-next", commonName: commonName, by: "ca", serverName: "127.0.0.1")
        _ = rename(directory + "/server-next.key", serverKey)
        _ = rename(directory + "/server-next.crt", serverCertificate)
    }

    /// Deletes the directory.
    package func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func makeCA(_ name: String, name subject: String) throws {
        try run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", "\(name).key", "-out", "\(name).crt", "-days", "2", "-subj", "/CN=\(subject)"])
    }

    private func issue(_ name: String, commonName: String, by ca: String, serverName: String?) throws {
        try run(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(commonName)"])
        let extensions = serverName.map { "subjectAltName=IP:\($0)\nextendedKeyUsage=serverAuth\n" }
            ?? "extendedKeyUsage=clientAuth\n"
        try extensions.write(toFile: directory + "/\(name).ext", atomically: true, encoding: .utf8)
        try run(["x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).crt", "-CAkey", "\(ca).key", "-CAcreateserial",
                 "-out", "\(name).crt", "-days", "2", "-extfile", "\(name).ext"])
    }

    private func run(_ arguments: [String]) throws {
        guard let openssl = Self.openssl else { throw TLSTestTools.Failure("openssl is not installed") }
        let result = try TLSTestTools.runBlocking(openssl, arguments, in: directory)
        guard result.status == 0 else {
            throw TLSTestTools.Failure("openssl \(arguments.first ?? "") failed: \(result.standardError)")
        }
    }
}
