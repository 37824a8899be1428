import WPLogging

extension HTTPServer {
    /// The TLS context store for ``Configuration/tls``; `nil` for plain HTTP.
    ///
    /// - Throws: ``HTTPServerError/system(operation:reason:)`` with operation `TLS setup`
    ///   naming the file or setting that is wrong (unreadable certificate, key mismatch,
    ///   OpenSSL missing).
    func makeTLSContextStore() throws(HTTPServerError) -> TLSContextStore? {
        guard let tls = configuration.tls else { return nil }
        do {
            return try TLSContextStore(configuration: tls, logger: logger)
        } catch {
            throw HTTPServerError.system(operation: "TLS setup", reason: error.description)
        }
    }
}
