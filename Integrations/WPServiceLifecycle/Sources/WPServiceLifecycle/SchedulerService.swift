import ServiceLifecycle
import WPScheduler

/// A WPScheduler ``TickScheduler`` as a swift-service-lifecycle `Service`.
///
/// Graceful shutdown of the group stops the scheduler as cancelling its task does: no tick
/// starts after it, and a run in progress may finish within the scheduler's
/// `gracefulShutdownTimeout` (then it is cancelled). `run()` returns when the scheduler has
/// stopped. The run in progress can await `gracefulShutdown()` itself to cut long work short.
///
/// ```swift
/// let refresh = TickScheduler(configuration: .init(interval: .seconds(30), workName: "refresh"),
///                         clock: ContinuousClock(), logger: log) { _ in await cache.refresh() }
/// let group = ServiceGroup(configuration: .init(services: [SchedulerService(refresh)],
///                                               gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()
/// ```
public struct SchedulerService<C: Clock>: Service where C.Duration == Duration {
    /// The scheduler this service runs.
    public let scheduler: TickScheduler<C>

    /// A service running `scheduler`. Run it once: a scheduler is not restarted.
    public init(_ scheduler: TickScheduler<C>) {
        self.scheduler = scheduler
    }

    public func run() async throws {
        let scheduler = self.scheduler
        await cancelWhenGracefulShutdown { await scheduler.run() }
    }
}
