import WPCSecurityShim
import WPCSystem
import WPLogging

/// TLS over one accepted socket: a non-blocking server handshake, then encrypted reads and
/// writes. Confined to the event loop thread like every ``ConnectionIO``.
///
/// The handshake is driven by reads: until it completes, ``read(into:)`` advances it and
/// answers ``IOResult/wouldBlock``, setting ``readWaitsForWritable`` when OpenSSL waits to
/// send, so the loop retries on writability. It never blocks the loop. A client speaking plain
/// HTTP (first byte not a TLS handshake record) gets a short plain-text `400` and is closed.
final class TLSConnectionIO: ConnectionIO {
    private(set) var descriptor: Int32
    private var session: OpaquePointer?
    private var handshakeDone = false
    /// The first byte was a TLS handshake record (checked once, before OpenSSL reads anything).
    private var sawClientHello = false
    private let logger: WPLogger
    private let remoteAddress: String
    private(set) var readWaitsForWritable = false
    private(set) var writeWaitsForReadable = false

    static let plainHTTPAnswer = "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + "Connection: close\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"

    /// Takes ownership of `descriptor` and `session`.
    init(descriptor: Int32, session: OpaquePointer, logger: WPLogger, remoteAddress: String) {
        self.descriptor = descriptor
        self.session = session
        self.logger = logger
        self.remoteAddress = remoteAddress
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        guard let session else { return .failed(9) }
        readWaitsForWritable = false
        if !handshakeDone {
            let outcome = handshake(session)
            if outcome != .bytes(0) { return outcome }
        }
        var wants: Int32 = 0
        let count = wps_tls_read(UnsafeMutableRawPointer(session), buffer.baseAddress, buffer.count, &wants)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .endOfStream }
        if count == -1 {
            readWaitsForWritable = wants == Int32(WPS_WANTS_WRITE)
            return .wouldBlock
        }
        return .failed(5)
    }

    /// `.bytes(0)` when the handshake is complete; otherwise what `read` answers.
    private func handshake(_ session: OpaquePointer) -> IOResult {
        if !sawClientHello {
            let first = wps_peek_byte(descriptor)
            if first == -1 { return .wouldBlock }
            if first == -2 { return .endOfStream }
            if first != 0x16 {
                // Not a TLS handshake record: most likely plain HTTP.
                logger.debug("tls handshake refused: plain HTTP on the TLS port", ["remote": .string(remoteAddress)])
                wps_send_plain(descriptor, Self.plainHTTPAnswer)
                return .failed(71)  // EPROTO
            }
            sawClientHello = true
        }
        var wants: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        switch wps_tls_handshake(UnsafeMutableRawPointer(session), &wants, &message, message.count) {
        case 1:
            handshakeDone = true
            return .bytes(0)
        case 0:
            readWaitsForWritable = wants == Int32(WPS_WANTS_WRITE)
            return .wouldBlock
        default:
            logger.debug("tls handshake failed", ["remote": .string(remoteAddress),
                                                  "error": .string(TLSContextStore.string(message))])
            return .failed(71)
        }
    }

    /// A TLS write takes two buffers (one record when they are small together).
    var buffersPerWrite: Int { 2 }

    /// Writes the first two non-empty buffers (one TLS record when they are small together);
    /// the caller comes back for the rest.
    func write(_ buffers: UnsafeBufferPointer<UnsafeRawBufferPointer>) -> IOResult {
        guard let session, handshakeDone else { return .failed(9) }
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        let first = buffers.first ?? none
        let second = buffers.count > 1 ? buffers[1] : none
        writeWaitsForReadable = false
        var wants: Int32 = 0
        let count = wps_tls_write(UnsafeMutableRawPointer(session), first.baseAddress, first.count,
                                  second.baseAddress, second.count, &wants)
        if count >= 0 { return .bytes(count) }
        if count == -1 {
            writeWaitsForReadable = wants == Int32(WPS_WANTS_READ)
            return .wouldBlock
        }
        return .failed(32)  // EPIPE
    }

    func shutdownWrite() {
        guard let session, descriptor >= 0 else { return }
        if handshakeDone { wps_tls_shutdown(UnsafeMutableRawPointer(session)) }
        _ = cs_shutdown_write(descriptor)
    }

    func close() {
        if let session {
            if handshakeDone { wps_tls_shutdown(UnsafeMutableRawPointer(session)) }
            wps_tls_session_free(UnsafeMutableRawPointer(session))
            self.session = nil
        }
        guard descriptor >= 0 else { return }
        _ = cs_close(descriptor)
        descriptor = -1
    }
}
