/// The process-wide powers the long-running commands need, injected by `main`: watching for
/// stop and reload signals and exiting at once.
struct ProcessControls: Sendable {
    /// Waits for the first stop signal; `onRepeat` runs on every later one. Returns when the
    /// first signal arrives (at once if it already did) or the task is cancelled.
    typealias StopWaiter = @Sendable (_ onRepeat: @escaping @Sendable () -> Void) async -> Void

    /// Starts watching SIGTERM/SIGINT now (so a signal that arrives while starting up is not
    /// lost) and returns the function that waits for them.
    var watchStopSignals: @Sendable () -> StopWaiter
    /// Ends the process now with a status (a second signal).
    var exit: @Sendable (Int32) -> Void
    /// Starts watching SIGHUP and returns the stream of reload requests it makes (`server`
    /// reloads its configuration on each). Tests pass a stream they feed.
    var watchReloadSignals: @Sendable () -> AsyncStream<Void> = { AsyncStream { $0.finish() } }
    /// Starts watching SIGUSR1 and SIGUSR2 and returns them in the order they arrived, `true`
    /// for SIGUSR1 (`simulate` goes down on it, comes back up on SIGUSR2). Tests pass a stream
    /// they feed.
    var watchSimulatorSignals: @Sendable () -> AsyncStream<Bool> = { AsyncStream { $0.finish() } }
}
