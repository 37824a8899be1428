// The examples of docs/scheduler.md, docs/logging.md (durations) and the TickScheduler doc
// comment.
import WPLogging
import WPScheduler

final class Cache: Sendable {
    func refresh() async {}
}

func schedule(cache: Cache, log: WPLogger) async {
    let scheduler = TickScheduler(configuration: .init(interval: .seconds(5), gracefulShutdownTimeout: .seconds(5),
                                                   workName: "refresh"),
                              clock: ContinuousClock(), logger: log) { tick in
        await cache.refresh()
    }
    await scheduler.run()   // until the task is cancelled
}

func logDurations(log: WPLogger, lifetime: Duration) {
    log.info("logged in", ["token_lifetime_s": .seconds(lifetime)])
}
