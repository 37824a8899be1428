import Synchronization

/// Reports a sink's I/O failures at most once per kind (`open`, `write`, `rotate`, ...).
///
/// A log sink must never crash or throw from `write`, but silently losing logs is bad too: the
/// first failure of each kind is reported through the injected closure (by default a line on
/// standard error), later ones are counted and dropped.
final class FailureReporter: Sendable {
    private let reported = Mutex<Set<String>>([])
    private let sinkName: String
    private let output: @Sendable (String) -> Void

    init(sinkName: String, output: @escaping @Sendable (String) -> Void) {
        self.sinkName = sinkName
        self.output = output
    }

    /// Reports `message` unless a failure of the same `kind` was reported before.
    func report(kind: String, _ message: String) {
        let first = reported.withLock { $0.insert(kind).inserted }
        guard first else { return }
        output("logging: \(sinkName): \(message) (further \(kind) failures are not reported)")
    }
}
