import Synchronization
import WPCompression
import WPMetrics
import WPRuntime

/// Renders a registry for concurrent requests once, on a thread of its own.
///
/// A request arriving while no render of its kind (format, gzip or not) is under way starts
/// one; a request arriving while one is under way waits for the next, which starts as soon as
/// the current one ends, so no request is answered with values older than its arrival, and every
/// request waiting for that next render shares it. Rendering and compressing run on the
/// `metrics-render` thread (a ``WorkerQueue``), never on Swift's pool, so other routes of the
/// server are answered while a large registry renders.
final class SharedRender: Sendable {
    struct Kind: Hashable, Sendable {
        var format: ExpositionFormat
        var gzip: Bool
    }

    struct Body: Sendable {
        var bytes: [UInt8]
        var gzipped: Bool
    }

    private struct State {
        var running: Set<Kind> = []
        var waiting: [Kind: [CheckedContinuation<Body, Never>]] = [:]
    }

    /// Bodies shorter than this are not compressed (as WPServer's default).
    static let gzipMinimumBytes = 1024

    private let registry: MetricRegistry
    private let state = Mutex(State())
    private let worker = WorkerQueue(name: "metrics-render", maxThreads: 1, idleTime: .seconds(30))

    init(registry: MetricRegistry) {
        self.registry = registry
    }

    /// Requests waiting for a render not yet started (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.values.reduce(0) { $0 + $1.count } } }

    /// The registry rendered in `kind` no earlier than this call.
    func body(_ kind: Kind) async -> Body {
        await withCheckedContinuation { continuation in
            let start = state.withLock { state -> [CheckedContinuation<Body, Never>]? in
                state.waiting[kind, default: []].append(continuation)
                guard state.running.insert(kind).inserted else { return nil }
                return state.waiting.removeValue(forKey: kind)
            }
            if let start { render(kind, for: start) }
        }
    }

    private func render(_ kind: Kind, for waiters: [CheckedContinuation<Body, Never>]) {
        let run: @Sendable () -> Void = { [self] in
            let body = make(kind)
            for waiter in waiters { waiter.resume(returning: body) }
            let next = state.withLock { state -> [CheckedContinuation<Body, Never>]? in
                if let next = state.waiting.removeValue(forKey: kind), !next.isEmpty { return next }
                state.running.remove(kind)
                return nil
            }
            if let next { render(kind, for: next) }
        }
        // Without a thread (a thread or memory limit) the render runs where it was asked for.
        worker.submit(WorkerQueue.Job(run: run, refuse: { _ in run() }))
    }

    private func make(_ kind: Kind) -> Body {
        let plain = registry.render(format: kind.format)
        guard kind.gzip, plain.count >= Self.gzipMinimumBytes, let compressed = Gzip.compress(plain),
              compressed.count < plain.count else {
            return Body(bytes: plain, gzipped: false)
        }
        return Body(bytes: compressed, gzipped: true)
    }
}
