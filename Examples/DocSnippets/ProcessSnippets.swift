// The examples of docs/process.md and of the TerminationSignals, GracefulTermination,
// SignalRequests and StandardStreams doc comments.
import WPLogging
import WPProcess
import WPScheduler
#if os(Linux)
import WPServer
#endif

final class SnippetStateStore: Sendable {
    func persist(timeout: Duration) {}
}

func terminateGracefully(store: SnippetStateStore) async {
    let termination = GracefulTermination()
    termination.onRepeat { _ in
        store.persist(timeout: .milliseconds(500))
        StandardStreams.exit(1, flushingWithin: .milliseconds(500))
    }
    await termination.first()      // then stop gracefully
}

func reloadOnHangup(reload: @Sendable () async -> Void) async {
    let hangups = SignalRequests()
    for await _ in hangups.requests { await reload() }
}

func writeAndExit() -> Never {
    StandardStreams.writeOutput("ready\n")
    StandardStreams.exit(0, flushingWithin: .seconds(1))
}

#if os(Linux)
func serveUntilTerminated(scheduler: TickScheduler<ContinuousClock>, server: WPHTTPServer, log: WPLogger) async throws {
    let signal = try await runUntilTerminated {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await scheduler.run() }
            group.addTask { try await server.run() }
            try await group.waitForAll()
        }
    }
    log.info("stopped", ["signal": .int(Int(signal ?? 0))])
}
#endif

func watchSignals(log: WPLogger) async {
    for await signal in TerminationSignals() {
        log.info("stopping", ["signal": .int(Int(signal))])
        break
    }
}
