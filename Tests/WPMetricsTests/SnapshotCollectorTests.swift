import Dispatch
import Synchronization
import Testing
import WPTestThreads
import WPMetrics
import WPRuntime
import WPTestSupport

/// An executor running the actor's jobs on a dispatch queue the test can hold busy.
private final class QueueExecutor: SerialExecutor {
    let queue = DispatchQueue(label: "snapshot-collector-tests.stock")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Occupies the queue (and so the actor) until `gate` is signalled.
    func hold(until gate: DispatchSemaphore) {
        queue.async { gate.wait() }
    }
}

/// State owned by an actor, exported through a snapshot it publishes on every change.
private actor Stock {
    nonisolated let executor = QueueExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private var items: [String: Int] = [:]
    nonisolated let metrics: SnapshotCollector<[String: Int]>

    init() throws {
        let descriptor = MetricDescriptor(name: "stock_items", help: "Items in stock.", type: .gauge, labelNames: ["item"])
        metrics = try SnapshotCollector(descriptors: [descriptor], initial: [:]) { items in
            var family = try descriptor.makeFamily(capacity: items.count)
            for (item, count) in items { try family.append(labelValues: [item], value: Double(count)) }
            return [family]
        }
    }

    func restock(_ item: String, _ count: Int) {
        items[item, default: 0] += count
        metrics.publish(items)
    }

    /// Changes the state without publishing it.
    func takeQuietly(_ item: String) {
        items[item, default: 0] -= 1
    }

    var total: Int { items.values.reduce(0, +) }
}

private actor Reading {
    var value = 1.0
    func set(_ value: Double) { self.value = value }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SnapshotCollectorTests {
    private func text(_ registry: MetricRegistry) -> String {
        String(decoding: registry.render(format: .text), as: UTF8.self)
    }

    @Test func aScrapeSeesTheLastPublishedStateWhileTheActorIsBusy() async throws {
        let stock = try Stock()
        let registry = MetricRegistry()
        try registry.register(stock.metrics)
        #expect(text(registry) == "# HELP stock_items Items in stock.\n# TYPE stock_items gauge\n")

        await stock.restock("apples", 3)
        #expect(text(registry).contains("stock_items{item=\"apples\"} 3\n"))
        await stock.takeQuietly("apples")           // not published: scrapes keep the published state
        #expect(await stock.total == 2)
        #expect(text(registry).contains("stock_items{item=\"apples\"} 3\n"))

        // Hold the actor's executor busy, and queue a change behind it: a scrape that needed the
        // actor could not finish now; it answers at once with the last published state.
        let gate = DispatchSemaphore(value: 0)
        stock.executor.hold(until: gate)
        let change = Task { await stock.restock("pears", 2) }
        let whileBusy = text(registry)
        #expect(whileBusy.contains("stock_items{item=\"apples\"} 3\n"))
        #expect(!whileBusy.contains("pears"))
        gate.signal()
        await change.value
        #expect(text(registry).contains("stock_items{item=\"apples\"} 2\nstock_items{item=\"pears\"} 2\n"))
    }

    @Test func familiesAreBuiltOncePerPublishedSnapshot() throws {
        let builds = Mutex(0)
        let descriptor = MetricDescriptor(name: "jobs_done_total", help: "Jobs.", type: .counter)
        let collector = try SnapshotCollector(descriptors: [descriptor], initial: 1.0) { value in
            builds.withLock { $0 += 1 }
            var family = try descriptor.makeFamily(capacity: 1)
            try family.append(Sample(labelValues: [], value: .counter(value)))
            return [family]
        }
        #expect(collector.collect().first?.samples.first?.value == .counter(1))
        _ = collector.collect()
        #expect(builds.withLock { $0 } == 1)
        collector.publish(5)
        #expect(collector.snapshot == 5)
        #expect(collector.collect().first?.samples.first?.value == .counter(5))
        #expect(builds.withLock { $0 } == 2)
        #expect(collector.lastError == nil)

        collector.publish(-1)                        // a counter cannot be negative: no families, and why
        #expect(collector.collect().isEmpty)
        #expect((collector.lastError as? MetricsError) == .negativeCounterIncrement(metric: "jobs_done_total", amount: -1))
        collector.publish(6)
        #expect(collector.lastError == nil)          // a new snapshot clears it
        #expect(collector.collect().count == 1)
        #expect(collector.lastError == nil)
    }

    @Test func invalidDescriptorsAreRejectedAtCreation() {
        #expect(throws: MetricsError.invalidMetricName("bad name")) {
            try SnapshotCollector(descriptors: [MetricDescriptor(name: "bad name", help: "", type: .gauge)], initial: 0) { _ in [] }
        }
    }

    @Test func refreshReadsTheActorOnTheClockAndScrapesNeverWait() async throws {
        let clock = ManualClock()
        let reading = Reading()
        let registry = MetricRegistry()
        let descriptor = MetricDescriptor(name: "temperature_celsius", help: "Temperature.", type: .gauge, unit: "celsius")
        let collector = try SnapshotCollector(descriptors: [descriptor], initial: .nan) { value in
            var family = try descriptor.makeFamily(capacity: 1)
            try family.append(labelValues: [], value: value)
            return [family]
        }
        try registry.register(collector)
        let refreshing = Task { await collector.refresh(every: .seconds(5), clock: clock) { await reading.value } }

        await clock.waitForSleepers(1)               // read once at the start, then sleeping
        #expect(text(registry).contains("temperature_celsius 1\n"))
        await reading.set(2)
        #expect(text(registry).contains("temperature_celsius 1\n"))   // not read yet
        clock.advance(by: .seconds(4))
        #expect(collector.snapshot == 1)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)               // read again, sleeping until the next deadline
        #expect(text(registry).contains("temperature_celsius 2\n"))

        refreshing.cancel()
        await refreshing.value                       // returns once cancelled
        await reading.set(3)
        #expect(text(registry).contains("temperature_celsius 2\n"))
    }
}
