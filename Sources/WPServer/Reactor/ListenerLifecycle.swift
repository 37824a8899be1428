import Synchronization
import WPLogging
import WPRuntime

/// Where a server is between `run()` and its end, and the tasks waiting for it to listen: one
/// state machine for ``WPHTTPServer`` and ``LineServer``.
///
/// `idle` → `starting` (``begin()``) → `listening` (``listening(at:)``) or `failed` → `finished`.
final class ListenerLifecycle: Sendable {
    private enum State {
        case idle
        case starting
        case listening(ServerAddress)
        case failed(ServerError)
        case finished
    }

    private struct Waiters {
        var next: UInt64 = 0
        var pending: [UInt64: CheckedContinuation<ServerAddress, any Error>] = [:]
    }

    private let state = Mutex(State.idle)
    private let waiters = Mutex(Waiters())

    init() {}

    /// Claims the server for one run.
    ///
    /// - Throws: ``ServerError/alreadyStarted`` when it ran (or runs) already.
    func begin() throws(ServerError) {
        let fresh = state.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .starting
            return true
        }
        guard fresh else { throw .alreadyStarted }
    }

    /// The socket is bound: waiters get `address`.
    func listening(at address: ServerAddress) {
        state.withLock { $0 = .listening(address) }
        resumeWaiters(.success(address))
    }

    /// The server could not start: waiters get `error`.
    func failed(_ error: ServerError) {
        state.withLock { $0 = .failed(error) }
        resumeWaiters(.failure(error))
    }

    /// The server stopped; later waiters get ``ServerError/notListening``.
    func finished() {
        state.withLock { $0 = .finished }
        resumeWaiters(.failure(.notListening))
    }

    /// The bound address while listening; `nil` before and after.
    var address: ServerAddress? {
        state.withLock { state in
            if case .listening(let address) = state { return address }
            return nil
        }
    }

    /// Waits until the server listens and returns the bound address.
    ///
    /// - Throws: the start error, ``ServerError/notListening`` when the server already stopped,
    ///   `CancellationError` when the waiting task is cancelled.
    func waitUntilListening() async throws -> ServerAddress {
        let id = waiters.withLock { waiters in
            waiters.next += 1
            return waiters.next
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<ServerAddress, any Error>? = state.withLock { state in
                    switch state {
                    case .listening(let address): return .success(address)
                    case .failed(let error): return .failure(error)
                    case .finished: return .failure(ServerError.notListening)
                    case .idle, .starting:
                        // Checked under the waiters' lock: a cancellation before this point ran
                        // `onCancel` when there was no waiter to resume; one after it finds it.
                        let stored = waiters.withLock { waiters in
                            if Task.isCancelled { return false }
                            waiters.pending[id] = continuation
                            return true
                        }
                        return stored ? nil : .failure(CancellationError())
                    }
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            waiters.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    private func resumeWaiters(_ result: Result<ServerAddress, ServerError>) {
        let pending = waiters.withLock { waiters in
            defer { waiters.pending.removeAll() }
            return Array(waiters.pending.values)
        }
        for continuation in pending { continuation.resume(with: result.mapError { $0 as any Error }) }
    }
}

/// An event loop a server runs on a thread of its own (``WPHTTPServer``'s and ``LineServer``'s).
protocol ServerLoop: Sendable {
    /// Runs until a requested shutdown completes; then every descriptor of the loop is closed.
    func runLoop()
    /// Releases everything without running (the loop's thread could not be started).
    func discard()
    /// Starts a graceful shutdown; callable from any thread.
    func requestShutdown()
}

extension ListenerLifecycle {
    /// The whole life of a server: claims it, binds, reports listening, runs the loop on a
    /// thread named `<kind>-loop` until the calling task is cancelled, then reports finished.
    ///
    /// - Throws: what `bind` throws, ``ServerError/alreadyStarted``, or
    ///   ``ServerError/system(operation:reason:)`` when the loop's thread cannot start.
    ///
    /// `bind` runs on a thread of its own (`<kind>-bind`): resolving a host name may block.
    func serve<Loop: ServerLoop>(kind: String, logger: WPLogger,
                                 bind: @escaping @Sendable () throws(ServerError) -> (Loop, ServerAddress)) async throws {
        try begin()
        let loop: Loop
        let address: ServerAddress
        do throws(ServerError) {
            let bound: Result<(Loop, ServerAddress), ServerError>
            do {
                bound = try await NamedThread.run(name: "\(kind)-bind") { Result { () throws(ServerError) in try bind() } }
            } catch {
                bound = .failure(.system(operation: "pthread_create", reason: String(describing: error)))
            }
            (loop, address) = try bound.get()
        } catch {
            failed(error)
            throw error
        }
        listening(at: address)
        logger.info("\(kind) server listening", ["address": .string(address.description)])
        let failure: ServerError? = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ServerError?, Never>) in
                do throws(ThreadStartError) {
                    try NamedThread.start(name: "\(kind)-loop") {
                        loop.runLoop()
                        continuation.resume(returning: nil)
                    }
                } catch {
                    loop.discard()
                    continuation.resume(returning: .system(operation: "pthread_create", reason: error.description))
                }
            }
        } onCancel: {
            loop.requestShutdown()
        }
        finished()
        if let failure { throw failure }
        logger.info("\(kind) server stopped", ["address": .string(address.description)])
    }
}
