import WPCSystem

/// The outcome of one non-blocking read or write.
package enum IOResult: Equatable {
    case bytes(Int)
    case endOfStream
    case wouldBlock
    case failed(Int32)
}

/// Byte I/O of one accepted connection: the seam a TLS layer wraps.
///
/// Confined to the event loop thread. Calls never block: a call that cannot make progress
/// answers ``IOResult/wouldBlock`` and the loop waits for readiness of ``descriptor``.
package protocol ConnectionIO: AnyObject {
    /// The socket the loop polls for readiness.
    var descriptor: Int32 { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult
    /// Writes `buffers` in order (none empty; at most ``buffersPerWrite`` are passed); returns
    /// the bytes accepted, which may end anywhere in them.
    func write(_ buffers: UnsafeBufferPointer<UnsafeRawBufferPointer>) -> IOResult
    /// How many buffers one ``write(_:)`` can use: the caller gathers no more.
    var buffersPerWrite: Int { get }
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
    package var buffersPerWrite: Int { EncodedResponse.maxBuffersPerWrite }
    package var readWaitsForWritable: Bool { false }
    package var writeWaitsForReadable: Bool { false }
}

/// Plain TCP: `recv`, `sendmsg` with `MSG_NOSIGNAL` (a closed peer never raises SIGPIPE), every
/// buffer of a write gathered into one call.
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

    func write(_ buffers: UnsafeBufferPointer<UnsafeRawBufferPointer>) -> IOResult {
        guard descriptor >= 0 else { return .failed(9) }
        let count = Int32(min(buffers.count, EncodedResponse.maxBuffersPerWrite))
        return withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: Int(count)) { bases in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: Int(count)) { lengths in
                for index in 0..<Int(count) {
                    bases[index] = buffers[index].baseAddress
                    lengths[index] = buffers[index].count
                }
                let sent = cs_sendv(descriptor, bases.baseAddress, lengths.baseAddress, count)
                return Self.result(sent, zeroIs: .bytes(0))
            }
        }
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
