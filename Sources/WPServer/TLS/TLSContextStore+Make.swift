import WPLogging

extension TLSContextStore {
    /// The contexts for `configuration`, or `nil` without TLS.
    ///
    /// - Throws: ``ServerError/system(operation:reason:)`` with operation `TLS setup` naming
    ///   the file or setting that is wrong (unreadable certificate, key mismatch, OpenSSL
    ///   missing).
    static func make(_ configuration: WPTLSConfiguration?, logger: WPLogger) throws(ServerError) -> TLSContextStore? {
        guard let configuration else { return nil }
        do {
            return try TLSContextStore(configuration: configuration, logger: logger)
        } catch {
            throw .system(operation: "TLS setup", reason: error.description)
        }
    }
}
