import Synchronization
import WPLogging

/// Opens once; `wait()` returns once it is open.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }
}

/// Keeps every record; `wait(for:)` returns the first record with a message, once written.
final class RecordingSink: LogSink {
    private let state = Mutex<(records: [LogRecord], waiters: [(String, CheckedContinuation<LogRecord, Never>)])>(([], []))

    func write(_ record: LogRecord) {
        let ready = state.withLock { state in
            state.records.append(record)
            let ready = state.waiters.filter { $0.0 == record.message }
            state.waiters.removeAll { $0.0 == record.message }
            return ready
        }
        for (_, waiter) in ready { waiter.resume(returning: record) }
    }

    func wait(for message: String) async -> LogRecord {
        await withCheckedContinuation { (continuation: CheckedContinuation<LogRecord, Never>) in
            let found = state.withLock { state in
                let found = state.records.first { $0.message == message }
                if found == nil { state.waiters.append((message, continuation)) }
                return found
            }
            if let found { continuation.resume(returning: found) }
        }
    }
}

/// What a wait that ran out of time was waiting for.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// `body`'s result, or ``TimedOut`` after `limit` (then `body` is cancelled and left behind,
/// so a wait that ignores cancellation cannot hang the test).
func within<T: Sendable>(_ limit: Duration, _ what: String,
                         _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let first = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let resolve: @Sendable (Result<T, any Error>) -> Void = { result in
        first.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(with: result)
    }
    return try await withCheckedThrowingContinuation { continuation in
        first.withLock { $0 = continuation }
        let work = Task { resolve(await Result(catching: body)) }
        Task {
            try? await Task.sleep(for: limit)
            work.cancel()
            resolve(.failure(TimedOut(what: what)))
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
