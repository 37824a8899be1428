#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Lets the calling task's cancellation reach a blocking exchange on another thread.
///
/// Cancelling marks the exchange and shuts down the socket it is using, which wakes any
/// `poll` on it at once (a connecting socket is disconnected). libcurl transfers see the
/// mark through ``abortFlag``, which curl's progress callback polls.
final class ExchangeCancellation: Sendable {
    private struct State {
        var cancelled = false
        /// The socket in use; registered and unregistered under the lock, so cancel never
        /// touches a descriptor after it is closed (and perhaps reused).
        var socket: Int32?
    }

    private let state = Mutex(State())
    /// Read by libcurl's progress callback.
    let abortFlag = AbortFlag()

    /// Cancels the exchange; idempotent.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let socket = state.socket { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
        abortFlag.raise()
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Throws ``HTTPClientError/Kind/cancelled`` once cancelled.
    func check() throws(HTTPClientError) {
        if isCancelled { throw Self.error }
    }

    /// Makes `socket` the one ``cancel()`` shuts down; shuts it down now if already cancelled.
    func attach(_ socket: Int32) {
        state.withLock { state in
            state.socket = socket
            if state.cancelled { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Forgets `socket`; call before closing it.
    func detach(_ socket: Int32) {
        state.withLock { state in
            if state.socket == socket { state.socket = nil }
        }
    }

    static let error = HTTPClientError(.cancelled, "the request was cancelled")
}

/// A flag libcurl's progress callback polls to abort a cancelled transfer.
///
/// `@unchecked Sendable` is safe here: the only mutation is `raise()` storing 1 into a
/// heap-allocated `Int32` that the C side only reads (through a `volatile` pointer); a torn or
/// late read merely delays the abort to the next progress callback. The memory lives as long
/// as the flag, which outlives the transfer that reads it.
final class AbortFlag: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Int32>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: 0)
    }

    func raise() { pointer.pointee = 1 }

    deinit { pointer.deallocate() }
}
