#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WPPOSIX
import WPCSecurityShim
package import WPRuntime

/// What a TLS client trusts and shows: the server's certificate checked as
/// ``HTTPClient/TLSVerification`` says, and a client certificate when one is given. Made once
/// (files read, OpenSSL loaded at run time) and used by every connection of one client.
///
/// `https://` goes through libcurl; this is TLS for the clients that speak their own protocol
/// over ``ClientSocket`` (MQTT's `mqtts://`).
package final class TLSClientContext: @unchecked Sendable {
    // Immutable after init; OpenSSL contexts are safe to share between sessions on several threads.
    fileprivate let context: OpaquePointer
    package let verification: HTTPClient.TLSVerification

    /// A client context; `certificateFile` and `keyFile` go together.
    ///
    /// - Throws: ``HTTPClientError/Kind/libraryUnavailable`` without OpenSSL,
    ///   ``HTTPClientError/Kind/caFile`` for a CA file, certificate or key that cannot be used.
    package init(verification: HTTPClient.TLSVerification, certificateFile: String? = nil,
                 keyFile: String? = nil) throws(HTTPClientError) {
        var message = [CChar](repeating: 0, count: 320)
        guard wps_tls_load(&message, message.count) == 0 else {
            throw HTTPClientError(.libraryUnavailable, "TLS needs OpenSSL: \(Self.string(message))")
        }
        let caFile: String? = if case .trust(let file) = verification { file } else { nil }
        let made: OpaquePointer? = withOptionalCString(caFile) { ca in
            withOptionalCString(certificateFile) { certificate in
                withOptionalCString(keyFile) { key in
                    var options = wps_tls_client_options(ca_file: ca, certificate_file: certificate, key_file: key,
                                                         verify: verification == .skip ? 0 : 1)
                    return wps_tls_client_context_new(&options, &message, message.count).map(OpaquePointer.init)
                }
            }
        }
        guard let made else { throw HTTPClientError(.caFile, Self.string(message)) }
        context = made
        self.verification = verification
    }

    deinit { wps_tls_context_free(UnsafeMutableRawPointer(context)) }

    static func string(_ message: [CChar]) -> String {
        String(cBuffer: message)
    }
}

private func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString(body)
}

/// TLS over a connected ``ClientSocket``: the handshake (certificate and name checked), then
/// encrypted writes and reads, each wait bounded by a ``Deadline`` and cut short by an
/// ``ExchangeCancellation``, as the socket's own.
///
/// Not thread-safe: one thread uses it at a time.
package final class TLSClientStream {
    package let socket: ClientSocket
    private var session: OpaquePointer?

    /// Shakes hands with `serverName` (a host name: sent as SNI and matched against the
    /// certificate; an IP address: matched against its addresses) over `socket`, which the
    /// stream then owns.
    ///
    /// - Throws: ``HTTPClientError/Kind/certificate`` for a certificate refused,
    ///   ``HTTPClientError/Kind/tls`` for another failure of the handshake, `timeout`,
    ///   `cancelled`; the socket is then closed.
    package init(socket: ClientSocket, context: TLSClientContext, serverName: String, deadline: Deadline,
                 cancellation: ExchangeCancellation, authority: String) throws(HTTPClientError) {
        self.socket = socket
        let verify: Int32 = context.verification == .skip ? 0 : 1
        guard let made = serverName.withCString({
            wps_tls_client_session_new(UnsafeMutableRawPointer(context.context), socket.descriptor, $0, verify)
        }) else {
            socket.close(detachingFrom: cancellation)
            throw HTTPClientError(.tls, "cannot start TLS to \(authority) (server name \"\(serverName)\")")
        }
        session = OpaquePointer(made)
        do throws(HTTPClientError) {
            var message = [CChar](repeating: 0, count: 320)
            while true {
                var wants: Int32 = 0
                switch wps_tls_handshake(made, &wants, &message, message.count) {
                case 1: return
                case 0:
                    try socket.wait(for: Self.events(wants), deadline: deadline, cancellation: cancellation,
                                    doing: "in the TLS handshake with \(authority)")
                default:
                    try cancellation.check()
                    let detail = TLSClientContext.string(message)
                    let kind: HTTPClientError.Kind = detail.contains("certificate was refused") ? .certificate : .tls
                    throw HTTPClientError(kind, "TLS handshake with \(authority) failed: \(detail)")
                }
            }
        } catch {
            close(detachingFrom: cancellation)
            throw error
        }
    }

    deinit {
        if let session { wps_tls_session_free(UnsafeMutableRawPointer(session)) }
    }

    private static func events(_ wants: Int32) -> Int16 {
        wants == Int32(WPS_WANTS_WRITE) ? Int16(POLLOUT) : Int16(POLLIN)
    }

    /// Writes all of `bytes`.
    ///
    /// - Throws: `timeout`, `cancelled`, or `network`.
    package func write(_ bytes: [UInt8], deadline: Deadline, cancellation: ExchangeCancellation,
                       authority: String) throws(HTTPClientError) {
        guard let session else { throw HTTPClientError(.network, "the TLS connection to \(authority) is closed") }
        var offset = 0
        while offset < bytes.count {
            try cancellation.check()
            var wants: Int32 = 0
            let written = bytes.withUnsafeBytes { raw in
                wps_tls_write(UnsafeMutableRawPointer(session), raw.baseAddress.map { $0 + offset }, raw.count - offset,
                              nil, 0, &wants)
            }
            if written > 0 {
                offset += written
            } else if written == -1 {
                try socket.wait(for: Self.events(wants), deadline: deadline, cancellation: cancellation,
                                doing: "sending to \(authority)")
            } else {
                try cancellation.check()
                throw HTTPClientError(.network, "sending to \(authority) over TLS failed")
            }
        }
    }

    /// Reads what is available without waiting: the count of bytes (0 when the peer closed
    /// the connection), or nil when nothing is there yet and the socket must be waited on
    /// for ``readWaitsFor`` first. Reads until `buffer` is full or nothing is left
    /// decrypted or on the socket, so a caller that reads until nil leaves nothing behind.
    ///
    /// - Throws: `network` for a connection that failed.
    package func readAvailable(into buffer: UnsafeMutableRawBufferPointer, authority: String) throws(HTTPClientError) -> Int? {
        guard let session else { return 0 }
        var wants: Int32 = 0
        let count = wps_tls_read(UnsafeMutableRawPointer(session), buffer.baseAddress, buffer.count, &wants)
        if count >= 0 { return count }
        if count == -1 {
            readWaitsFor = Self.events(wants)
            return nil
        }
        throw HTTPClientError(.network, "reading from \(authority) over TLS failed")
    }

    /// What the socket must be ready for before ``readAvailable(into:authority:)`` can go on.
    package private(set) var readWaitsFor = Int16(POLLIN)

    /// Sends close_notify (best effort) and closes the socket.
    package func close(detachingFrom cancellation: ExchangeCancellation? = nil) {
        guard let session else { return }
        wps_tls_shutdown(UnsafeMutableRawPointer(session))
        wps_tls_session_free(UnsafeMutableRawPointer(session))
        self.session = nil
        socket.close(detachingFrom: cancellation)
    }
}
