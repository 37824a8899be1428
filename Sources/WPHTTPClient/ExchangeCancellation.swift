#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPCCurlShim

/// Lets the calling task's cancellation reach a blocking exchange on another thread.
///
/// Cancelling marks the exchange and shuts down the socket it is using, which wakes any
/// `poll` on it at once (a connecting socket is disconnected). libcurl transfers see the
/// mark through ``abortFlag``, which curl's progress callback polls.
package final class ExchangeCancellation: Sendable {
    private struct State {
        var cancelled = false
        /// The socket in use; registered and unregistered under the lock, so cancel never
        /// touches a descriptor after it is closed (and perhaps reused).
        var socket: Int32?
    }

    private let state = Mutex(State())
    /// Read by libcurl's progress callback.
    let abortFlag = AbortFlag()

    /// An exchange not cancelled yet.
    package init() {}

    /// Cancels the exchange; idempotent.
    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let socket = state.socket { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
        abortFlag.raise()
    }

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

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
/// The flag is an `_Atomic int` owned by the C shim (`wp_abort_flag`): ``raise()`` is an
/// atomic release store and the progress callback an atomic acquire load, both in C, so the
/// store on the cancelling thread and the read on the transfer's thread never race. Should
/// the allocation fail (out of memory), ``pointer`` is `nil`: the transfer is then never
/// aborted by the flag and ends at its deadline.
///
/// `@unchecked Sendable` is safe here: ``pointer`` never changes after `init`, the memory
/// behind it is only read and written through the shim's atomic functions, and it lives as
/// long as the flag, which outlives the transfer that reads it (the exchange holds its
/// ``ExchangeCancellation``).
final class AbortFlag: @unchecked Sendable {
    let pointer: OpaquePointer?

    init() {
        pointer = wp_abort_flag_create()
    }

    /// Raises the flag; idempotent, any thread.
    func raise() { wp_abort_flag_raise(pointer) }

    /// Whether the flag was raised.
    var isRaised: Bool { wp_abort_flag_is_raised(pointer) != 0 }

    deinit { wp_abort_flag_destroy(pointer) }
}
