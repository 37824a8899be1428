import CSystem

/// The outcome of one non-blocking read or write.
enum IOResult: Equatable {
    case bytes(Int)
    case endOfStream
    case wouldBlock
    case failed(Int32)
}

/// Byte I/O of one accepted connection: the seam a TLS layer wraps.
///
/// Confined to the event loop thread. Calls never block: a call that cannot make progress
/// answers ``IOResult/wouldBlock`` and the loop waits for readiness of ``descriptor``.
protocol ConnectionIO: AnyObject {
    /// The socket the loop polls for readiness.
    var descriptor: Int32 { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult
    /// Writes `first` then `second` (either may be empty); returns the bytes accepted.
    func write(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> IOResult
    /// Sends end-of-stream to the peer but keeps reading possible.
    func shutdownWrite()
    /// Closes the connection; further calls fail.
    func close()
    /// The last read would block until the socket is writable (a TLS handshake message).
    var readWaitsForWritable: Bool { get }
    /// The last write would block until the socket is readable (TLS).
    var writeWaitsForReadable: Bool { get }
}

extension ConnectionIO {
    var readWaitsForWritable: Bool { false }
    var writeWaitsForReadable: Bool { false }
}

/// Plain TCP: `recv`, `sendmsg` with `MSG_NOSIGNAL` (a closed peer never raises SIGPIPE).
final class SocketIO: ConnectionIO {
    private(set) var descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        guard descriptor >= 0 else { return .failed(9) }
        let count = cs_recv(descriptor, buffer.baseAddress, buffer.count)
        return Self.result(count, zeroIs: .endOfStream)
    }

    func write(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> IOResult {
        guard descriptor >= 0 else { return .failed(9) }
        let count = cs_send2(descriptor, first.baseAddress, first.count, second.baseAddress, second.count)
        return Self.result(count, zeroIs: .bytes(0))
    }

    func shutdownWrite() {
        guard descriptor >= 0 else { return }
        _ = cs_shutdown_write(descriptor)
    }

    func close() {
        guard descriptor >= 0 else { return }
        _ = cs_close(descriptor)
        descriptor = -1
    }

    private static func result(_ count: Int, zeroIs zero: IOResult) -> IOResult {
        if count > 0 { return .bytes(count) }
        if count == 0 { return zero }
        let code = Int32(-count)
        return code == 11 /* EAGAIN */ ? .wouldBlock : .failed(code)
    }
}
