/// The process-wide powers the long-running commands need, injected by `main`: waiting for
/// a stop signal and exiting at once.
struct ProcessControls: Sendable {
    /// Waits for SIGTERM/SIGINT; the handler runs on every later signal. Returns when the first
    /// signal arrives or the task is cancelled.
    var waitForStop: @Sendable (_ onRepeat: @escaping @Sendable () -> Void) async -> Void
    /// Ends the process now with a status (a second signal).
    var exit: @Sendable (Int32) -> Void
}
