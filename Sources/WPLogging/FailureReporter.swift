import WPPOSIX
import WPRuntime
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

    /// Reports a failed `write(2)` with its `errno` (kind `write`).
    func reportWrite(errno code: Int32) {
        report(kind: "write", "write failed: \(systemErrorText(code)) (errno \(code))")
    }
}

/// Calls `flush` on each of `items` in order, all within one deadline `timeout` from now;
/// `false` when any of them did not finish in the time left to it.
func flushEach<Items: Sequence>(_ items: Items, within timeout: Duration,
                                _ flush: (Items.Element, Duration) -> Bool) -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    var all = true
    for item in items where !flush(item, ContinuousClock.now.duration(to: deadline)) { all = false }
    return all
}
