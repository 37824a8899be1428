// The examples of docs/scheduler.md, docs/logging.md (durations), the Scheduler and
// TerminationSignals doc comments.
import WPLogging
import WPProcess
import WPScheduler
#if os(Linux)
import WPServer
#endif

final class Cache: Sendable {
    func refresh() async {}
}

func schedule(cache: Cache, log: Logger) async {
    let scheduler = Scheduler(configuration: .init(interval: .seconds(5), gracefulShutdownTimeout: .seconds(5),
                                                   workName: "refresh"),
                              clock: ContinuousClock(), logger: log) { tick in
        await cache.refresh()
    }
    await scheduler.run()   // until the task is cancelled
}

#if os(Linux)
func serveUntilTerminated(scheduler: Scheduler<ContinuousClock>, server: HTTPServer, log: Logger) async throws {
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

func watchSignals(log: Logger) async {
    for await signal in TerminationSignals() {
        log.info("stopping", ["signal": .int(Int(signal))])
        break
    }
}

func logDurations(log: Logger, lifetime: Duration) {
    log.info("logged in", ["token_lifetime_s": .seconds(lifetime)])
}
