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

/// Signals by name, each given once and kept: a wait for one given before returns at once, a
/// wait for one not given yet returns when it is, or when the waiting task is cancelled (its
/// test's time limit), so a signal that never comes fails that test and never hangs the run.
final class Signals: Sendable {
    private struct State {
        var given: Set<String> = []
        var next = 0
        var waiters: [(id: Int, name: String, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Mutex(State())

    /// Gives `name`: every wait for it returns.
    func give(_ name: String) {
        let ready = state.withLock { state in
            state.given.insert(name)
            defer { state.waiters.removeAll { $0.name == name } }
            return state.waiters.filter { $0.name == name }.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits until `name` was given, or the task is cancelled.
    func wait(for name: String) async {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state in
                    if state.given.contains(name) || Task.isCancelled { return true }
                    state.waiters.append((id, name, continuation))
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
}

/// Opens once; every waiter then continues (or its task is cancelled: ``Signals``).
final class OpenOnceGate: Sendable {
    private let signals = Signals()
    func wait() async { await signals.wait(for: "open") }
    func open() { signals.give("open") }
}

/// A log sink that lets a test wait for a message (or its task's cancellation: ``Signals``).
final class LogWaiter: LogSink {
    private let logged = Signals()

    func write(_ record: LogRecord) { logged.give(record.message) }

    /// Waits until `message` was logged, or the task is cancelled.
    func waitFor(_ message: String) async { await logged.wait(for: message) }

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
