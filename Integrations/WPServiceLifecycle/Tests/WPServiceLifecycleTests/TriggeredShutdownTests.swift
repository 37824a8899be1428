import Logging
import ServiceLifecycle
import Synchronization
import Testing
import WPLogging
import WPScheduler
import WPServiceLifecycle

/// Graceful shutdown triggered from code (`triggerGracefulShutdown()`), as a parent service
/// or a test does; no signal involved.
@Suite(.timeLimit(.minutes(3))) struct TriggeredShutdownTests {
    @Test func aTriggeredShutdownStopsTheScheduler() async throws {
        let runs = Mutex(0)
        let ran = Gate()
        let scheduler = TickScheduler(configuration: .init(interval: .seconds(3600)), clock: ContinuousClock(),
                                  logger: .disabled) { _ in
            runs.withLock { $0 += 1 }
            ran.open()
        }
        let group = ServiceGroup(configuration: .init(
            services: [SchedulerService(scheduler)],
            logger: Logger(label: "group", factory: { _ in SwiftLogNoOpLogHandler() })))
        let running = Task { try await group.run() }
        defer { running.cancel() }
        try await within(.seconds(60), "the first run") { await ran.wait() }
        await group.triggerGracefulShutdown()
        try await within(.seconds(60), "the group to return") { try await running.value }
        #expect(runs.withLock { $0 } == 1)
        #expect(scheduler.statistics.completed == 1)
    }
}
