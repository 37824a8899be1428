import Synchronization
import WPLogging
import WPServer
import WPTestSupport

/// Lets a test hold a handler inside `handle` until it says so.
final class Gate: Sendable {
    private let enteredStream = AsyncStream<Void>.makeStream()
    private let releaseStream = AsyncStream<Void>.makeStream()

    /// Called by the handler: signals entry, then waits for ``release()`` or cancellation.
    func pass() async {
        enteredStream.continuation.yield()
        var iterator = releaseStream.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    /// Waits until a handler is inside ``pass()``.
    func waitUntilEntered() async {
        var iterator = enteredStream.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    func release() { releaseStream.continuation.yield() }
}

/// Opens once; every waiter then continues. A waiter whose task is cancelled (its test's time
/// limit) continues too, so a test that never opens it cannot hang the run.
final class OpenOnceGate: Sendable {
    private let state = Mutex<(open: Bool, next: Int, waiters: [Int: CheckedContinuation<Void, Never>])>((false, 0, [:]))
    func wait() async {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state in
                    if !state.open && !Task.isCancelled { state.waiters[id] = continuation }
                    return state.open || Task.isCancelled
                }
                if go { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
    func open() {
        for waiter in state.withLock({ state in state.open = true; defer { state.waiters = [:] }; return state.waiters.values }) {
            waiter.resume()
        }
    }
}

/// A log sink that lets a test wait for a message.
final class LogWaiter: LogSink {
    private struct State {
        var messages: [String] = []
        var next = 0
        var waiters: [(id: Int, message: String, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Mutex(State())

    func write(_ record: LogRecord) {
        let ready = state.withLock { state in
            state.messages.append(record.message)
            let ready = state.waiters.filter { $0.message == record.message }.map(\.continuation)
            state.waiters.removeAll { $0.message == record.message }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits until `message` was logged, or the task is cancelled (its test's time limit: a
    /// message that never comes fails that test, never hangs the run).
    func waitFor(_ message: String) async {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state in
                    if state.messages.contains(message) || Task.isCancelled { return true }
                    state.waiters.append((id, message, continuation))
                    return false
                }
                if go { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }

    func logger() -> WPLogger { WPLogger(label: "test", level: .debug, sink: self) }
}

/// Echoes method, path and body; `/slow` waits on the gate, `/boom` throws, `/big` sends `bigBody`.
struct EchoHandler: HTTPHandler {
    var gate = Gate()
    var bigBodySize = 16 << 20

    func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        switch request.path {
        case "/slow":
            await gate.pass()
            return .text("slow done")
        case "/boom":
            throw Boom()
        case "/big":
            return WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: Array(repeating: UInt8(ascii: "b"), count: bigBodySize))
        case "/text":
            return .text(String(repeating: "wp_metric{device=\"1\"} 42\n", count: 400))
        default:
            return .text("\(request.method) \(request.path) \(String(decoding: request.body, as: UTF8.self))")
        }
    }
}

func get(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}

func configuration(_ change: (inout WPHTTPServer.Configuration) -> Void = { _ in }) -> WPHTTPServer.Configuration {
    var configuration = WPHTTPServer.Configuration(host: "127.0.0.1", port: 0)
    change(&configuration)
    return configuration
}
