import WPPOSIX
import WPRuntime
import WPCSecurityShim
import Glibc
import WPLogging

/// The listener's current OpenSSL context, rebuilt when the certificate, key or client CA
/// file changes.
///
/// Confined to the event loop thread. ``session(for:)`` runs on every accepted connection and
/// first compares each file's device, inode, size and modification time with the ones the
/// context was built from (three `stat` calls); when one changed, a new context is built and
/// used for this and later connections. Sessions keep a reference to the context they began
/// with, so replacing it never disturbs a connection in progress. A rebuild that fails (a key
/// written before its certificate, a half-copied file) is logged and the previous context kept;
/// the same file state is not retried until it changes again.
final class TLSContextStore {
    /// What identifies one version of a file.
    struct FileSignature: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
    }

    let configuration: WPTLSConfiguration
    private let logger: WPLogger
    private var context: OpaquePointer?
    private var builtFrom: [FileSignature?]
    private var failedAt: [FileSignature?]?
    /// How many contexts were built (the first included); read by tests through the server.
    private(set) var generation = 0

    /// Builds the first context.
    ///
    /// - Throws: ``TLSSetupError`` naming the file or setting that is wrong.
    init(configuration: WPTLSConfiguration, logger: WPLogger) throws(TLSSetupError) {
        self.configuration = configuration
        self.logger = logger
        var message = [CChar](repeating: 0, count: 256)
        guard wps_tls_load(&message, message.count) == 0 else { throw TLSSetupError(Self.string(message)) }
        if let release = wps_tls_release() { logger.debug("tls library loaded", ["library": .string(String(cString: release))]) }
        let signatures = Self.signatures(of: configuration)
        self.builtFrom = signatures
        self.context = try Self.makeContext(configuration)
        self.generation = 1
    }

    deinit {
        if let context { wps_tls_context_free(UnsafeMutableRawPointer(context)) }
    }

    /// A TLS session for an accepted socket, after picking up changed files.
    func session(for descriptor: Int32) -> OpaquePointer? {
        reloadIfChanged()
        guard let context else { return nil }
        return wps_tls_session_new(UnsafeMutableRawPointer(context), descriptor).map(OpaquePointer.init)
    }

    /// Rebuilds the context when a file changed since it was built.
    func reloadIfChanged() {
        let current = Self.signatures(of: configuration)
        guard current != builtFrom, failedAt.map({ $0 != current }) ?? true else { return }
        do {
            let fresh = try Self.makeContext(configuration)
            if let context { wps_tls_context_free(UnsafeMutableRawPointer(context)) }
            context = fresh
            builtFrom = current
            failedAt = nil
            generation += 1
            logger.info("tls certificate reloaded", ["cert_file": .string(configuration.certificateFile)])
        } catch {
            failedAt = current
            logger.warn("tls certificate reload failed; keeping the previous one",
                        ["error": .string(error.description)])
        }
    }

    /// The most bytes a certificate, key or CA file may hold: 1 MiB, as every file the
    /// configuration loader reads (a CA bundle of a few hundred certificates is under 300 KB).
    static let maxFileBytes = 1 << 20

    private static func makeContext(_ configuration: WPTLSConfiguration) throws(TLSSetupError) -> OpaquePointer {
        let cipherList: String?
        switch TLSCipherSuites.cipherList(configuration.cipherSuites) {
        case .success(let list): cipherList = list
        case .failure(let error): throw error
        }
        if configuration.clientAuthentication.verifies, configuration.clientCAFile == nil {
            throw TLSSetupError("client_auth_type \(configuration.clientAuthentication.rawValue) needs client_ca_file")
        }
        // OpenSSL reads these files whole, on the loop thread when a changed file is picked up
        // at an accept: a file swapped for a huge one (or a FIFO) must not stall the loop.
        for (key, path) in [("cert_file", configuration.certificateFile), ("key_file", configuration.keyFile),
                            ("client_ca_file", configuration.clientCAFile)] {
            guard let path else { continue }
            var status = stat()
            guard stat(path, &status) == 0 else { continue }  // OpenSSL names a missing file
            if (status.st_mode & S_IFMT) != S_IFREG {
                throw TLSSetupError("\(key) \"\(path)\" is not a regular file")
            }
            if Int(status.st_size) > maxFileBytes {
                throw TLSSetupError("\(key) \"\(path)\" is larger than 1 MiB (\(maxFileBytes) bytes), the most a PEM file may hold")
            }
        }
        var message = [CChar](repeating: 0, count: 256)
        let pointer: UnsafeMutableRawPointer? = configuration.certificateFile.withCString { certificate in
            configuration.keyFile.withCString { key in
                withOptionalCString(configuration.clientCAFile) { clientCA in
                    withOptionalCString(cipherList) { ciphers in
                        var options = wps_tls_options(
                            certificate_file: certificate, key_file: key, client_ca_file: clientCA,
                            client_auth: configuration.clientAuthentication.shimValue,
                            min_version: configuration.minimumVersion.wireValue,
                            max_version: configuration.maximumVersion?.wireValue ?? 0,
                            cipher_list: ciphers, prefer_server_ciphers: configuration.preferServerCipherSuites ? 1 : 0)
                        return wps_tls_context_new(&options, &message, message.count)
                    }
                }
            }
        }
        guard let pointer else { throw TLSSetupError(string(message)) }
        return OpaquePointer(pointer)
    }

    private static func signatures(of configuration: WPTLSConfiguration) -> [FileSignature?] {
        [configuration.certificateFile, configuration.keyFile, configuration.clientCAFile].map { path in
            guard let path else { return nil }
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            return FileSignature(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
                                 modifiedSeconds: Int(status.st_mtim.tv_sec),
                                 modifiedNanoseconds: Int(status.st_mtim.tv_nsec))
        }
    }

    static func string(_ buffer: [CChar]) -> String {
        String(cBuffer: buffer)
    }
}

/// Calls `body` with a C string for `text`, or with `nil`.
func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
