import FoundationEssentials
import Synchronization
package import WPConfig
package import WPFrontEnd
package import WPLogging
import WPMetrics
package import WPPushgateway

/// Pushes the exporter's metrics to a Prometheus Pushgateway at a fixed rate (`push.url`), for
/// sites where Prometheus cannot reach the exporter.
///
/// Each tick asks `source` for the rendered text exposition to push (the latest collection's
/// snapshot plus the exporter's own metrics, the same bytes a scrape gets) and replaces the
/// group on the gateway (HTTP `PUT`), so
/// series of devices that disappeared do not linger there. An empty answer (no collection has
/// finished yet) skips the tick. Ticks are drift-free: push *n* is due at start + *n* ×
/// `interval`; when a push (with the client's retries) outlasts an interval, the missed ticks
/// are skipped instead of pushing back to back.
///
/// A failed push never stops the loop: the first failure of a streak is logged as a warning
/// with the gateway's answer (``PushError`` never contains the password), the streak's end is
/// logged once, and ``status`` counts both for the exporter's own metrics.
///
/// ```swift
/// guard let client = try PushgatewayClient.exporterClient(configuration.push) else { return }  // push.url unset
/// let loop = PushLoop(client: client, interval: configuration.push.interval, clock: ContinuousClock(),
///                     logger: logger.child(label: "push")) { Array(snapshotText().utf8) }
/// try await loop.run()      // until the task is cancelled
/// ```
package final class PushLoop<C: Clock<Duration>>: Sendable {
    /// What the loop has done so far.
    package struct Status: Sendable, Equatable {
        /// Successful pushes.
        var pushes = 0
        /// Failed pushes (after the client's retries).
        var failures = 0
        /// Ticks skipped because nothing was collected yet.
        var emptyTicks = 0
        /// The last failure's description, nil once a push succeeds again.
        var lastError: String?
    }

    package let client: PushgatewayClient
    package let interval: Duration
    package let clock: C
    package let logger: WPLogger
    package let source: @Sendable () async -> [UInt8]
    private let state = Mutex(Status())

    /// Creates a loop; nothing happens before ``run()``.
    ///
    /// - Parameters:
    ///   - client: The Pushgateway client (URL, job, grouping, retries).
    ///   - interval: Time between two pushes (`push.interval`); at least 1 ms is used.
    ///   - clock: The clock that paces the pushes (tests inject a manual clock).
    ///   - logger: Where failures and recoveries are logged.
    ///   - source: The text exposition to push at each tick; empty skips the tick.
    package init(client: PushgatewayClient, interval: Duration, clock: C, logger: WPLogger,
         source: @escaping @Sendable () async -> [UInt8]) {
        self.client = client
        self.interval = max(interval, .milliseconds(1))
        self.clock = clock
        self.logger = logger
        self.source = source
    }

    /// A snapshot of what the loop has done.
    package var status: Status { state.withLock { $0 } }

    /// Pushes now, then every `interval`, until the task is cancelled (then it returns).
    package func run() async {
        var due = clock.now
        logger.info("pushing metrics to the Pushgateway",
                    ["url": .string(client.url.absoluteString), "interval_s": .seconds(interval)])
        while !Task.isCancelled {
            await pushOnce()
            due = Self.nextDue(after: due, now: clock.now, interval: interval)
            do {
                try await clock.sleep(until: due, tolerance: nil)
            } catch {
                return
            }
        }
    }

    /// One tick: take the exposition and push it, recording the outcome.
    package func pushOnce() async {
        let body = await source()
        guard !body.isEmpty else {
            state.withLock { $0.emptyTicks += 1 }
            return
        }
        do {
            try await client.push(rendered: body, replace: true)
            let recovered: (failures: Int, wasFailing: Bool) = state.withLock { status in
                status.pushes += 1
                defer { status.lastError = nil }
                return (status.failures, status.lastError != nil)
            }
            if recovered.wasFailing {
                logger.info("pushing to the Pushgateway works again", ["failures": .int(recovered.failures)])
            }
        } catch {
            let message = error.description
            let firstOfStreak: Bool = state.withLock { status in
                status.failures += 1
                defer { status.lastError = message }
                return status.lastError == nil
            }
            if firstOfStreak {
                logger.warn("push to the Pushgateway failed; retrying at the next interval", ["error": .string(message)])
            }
        }
    }

    /// The next due instant after `due`: one interval later, or the first tick after `now`
    /// when pushing took longer than an interval (missed ticks are skipped).
    package static func nextDue(after due: C.Instant, now: C.Instant, interval: Duration) -> C.Instant {
        var next = due.advanced(by: interval)
        if next < now {
            let behind = next.duration(to: now)
            let missed = Int((behind / interval).rounded(.down)) + 1
            next = next.advanced(by: interval * missed)
        }
        return next
    }
}

extension PushgatewayClient {
    /// The client for `push.*`, or nil when `push.url` is unset.
    ///
    /// - Parameters:
    ///   - push: The loaded `push` section.
    ///   - grouping: Extra grouping labels (e.g. `["instance": hostname]`).
    /// - Returns: A client pushing to `push.url` under job `push.job`, or nil.
    /// - Throws: ``PushError/invalidConfiguration(_:)`` for a URL the client cannot use.
    package static func exporterClient(_ push: ExporterConfiguration.Push, grouping: [String: String] = [:]) throws(PushError)
        -> PushgatewayClient? {
        guard let text = push.url, !text.isEmpty else { return nil }
        guard let url = URL(string: text) else { throw .invalidConfiguration("push.url \(text) is not a URL") }
        let configuration = PushgatewayClient.Configuration(
            url: url, job: push.job, grouping: grouping, username: push.username, password: push.password?.reveal())
        return try PushgatewayClient(configuration: configuration)
    }
}

extension FrontEndFactory {
    /// The push loop of `push.*` (off without `push.url`), pushing what `/metrics` serves;
    /// made again when `push.*` changes.
    package static var push: FrontEndFactory {
        FrontEndFactory(section: "push", settings: { $0.push }) { context throws(FrontEndError) in
            let push = context.configuration.push
            let client: PushgatewayClient?
            do {
                client = try PushgatewayClient.exporterClient(push)
            } catch {
                throw .configuration("\(error)")
            }
            return client.map { client in
                PushLoop(client: client, interval: push.interval, clock: context.clock,
                         logger: context.logger.component("push"), source: context.exposition)
            }
        }
    }
}

extension PushLoop: FrontEnd {
    package var name: String { "the Pushgateway push loop" }
    /// Pushes from the first tick on; nothing to wait for.
    package func ready() async throws {}
}
