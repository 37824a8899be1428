import Synchronization
import WPCollector
package import WPEnergy
package import WPFrontEnd

extension FleetState {
    /// The fleet as it is now, with `exposition`.
    init(_ pipelines: [ServerPipeline<C>], exposition: FleetExposition) {
        self.init(servers: pipelines.map { Server(name: $0.name, collector: $0.collector) }, exposition: exposition)
    }
}

extension FleetExposition {
    /// A merge's result.
    init<C>(_ merged: ExpositionMerger<C>.Merged) {
        self.init(snapshot: merged.snapshot, parts: (merged.text, merged.openMetrics))
    }
}

/// The one path from collections to the front ends, whatever the configuration's shape: the
/// server of a `winpower`-only configuration publishes at once, named servers through the
/// ``ExpositionMerger`` (at most once per its spacing). Each publication makes one
/// ``FleetState`` (the servers, their readings and the exposition `/metrics` serves), keeps it
/// as the latest (``current``: what the HTTP endpoints read) and hands it to every subscriber,
/// on the publishing task, then runs `afterCollection`.
///
/// A front end subscribes while the exporter is composed, before anything runs; subscribers
/// do CPU work that finishes (building views, queueing notifications), never I/O.
package final class FleetPublication<C: Clock>: FleetPublishing where C.Duration == Duration {
    private final class Hub: Sendable {
        let fleet: ServerFleet<C>
        let afterCollection: @Sendable () -> Void
        let subscribers = Mutex<[@Sendable (FleetState<C>) -> Void]>([])
        /// The latest publication; `nil` before the first.
        let latest = Mutex<FleetState<C>?>(nil)

        init(fleet: ServerFleet<C>, afterCollection: @escaping @Sendable () -> Void) {
            self.fleet = fleet
            self.afterCollection = afterCollection
        }

        /// The fleet now, with the single server's own snapshot, else `merged`, else what
        /// `previous` served (a late publish of a server a reload removed, before the next merge).
        func state(merged: FleetExposition?, previous: FleetState<C>?) -> FleetState<C> {
            let exposition = fleet.single.map { FleetExposition(snapshot: $0.collector.snapshot) }
                ?? merged ?? previous?.exposition ?? FleetExposition(snapshot: .empty)
            return FleetState(fleet.pipelines, exposition: exposition)
        }

        /// Makes the state, keeps it as the latest (under the lock: two publications at once
        /// never leave the older one kept), hands it to every subscriber.
        func deliver(merged: FleetExposition?) {
            let state = latest.withLock { latest in
                let state = self.state(merged: merged, previous: latest)
                latest = state
                return state
            }
            for subscriber in subscribers.withLock({ $0 }) { subscriber(state) }
            afterCollection()
        }
    }

    private let hub: Hub
    /// Merges several servers' expositions into `/metrics` (idle for a single server).
    package let merger: ExpositionMerger<C>

    /// - Parameters:
    ///   - fleet: the servers whose collections are published.
    ///   - meter: the shared energy meter (its health is part of a merged exposition).
    ///   - spacing: the minimum time between two merges (``ExpositionMerger``).
    ///   - afterCollection: runs after each publication (the command-line tool returns freed
    ///     heap memory to the system there).
    package init(fleet: ServerFleet<C>, meter: EnergyMeter<C>, spacing: Duration, clock: C,
                 afterCollection: @escaping @Sendable () -> Void) {
        let hub = Hub(fleet: fleet, afterCollection: afterCollection)
        self.hub = hub
        merger = ExpositionMerger(spacing: spacing, clock: clock, parts: {
            fleet.pipelines.map { $0.collector.snapshot.chunks } + [WinPowerCollector<C>.processWideChunks(meter)]
        }, afterMerge: { hub.deliver(merged: FleetExposition($0)) })
    }

    /// The publish function for the collector of `server` (a `servers` name, or empty for the
    /// server of a `winpower`-only configuration).
    package func publisher(server: String) -> @Sendable () -> Void {
        guard server.isEmpty else { return merger.publisher() }
        let hub = self.hub
        return { hub.deliver(merged: nil) }
    }

    /// Publishes again: a reload changed the servers. The servers now are published at once
    /// (named servers with the last merge), then merged for named servers.
    package func republish() {
        let named = hub.fleet.single == nil
        hub.deliver(merged: named ? FleetExposition(merger.latest) : nil)
        if named { merger.publish() }
    }

    /// The latest publication; before the first, the fleet as it is now (the single server's
    /// snapshot, or the last merge).
    package var current: FleetState<C> {
        if let latest = hub.latest.withLock({ $0 }) { return latest }
        return hub.state(merged: FleetExposition(merger.latest), previous: nil)
    }

    /// The exposition of ``current``, read without the rest of the state (a scrape's one read).
    package var exposition: FleetExposition {
        if let exposition = hub.latest.withLock({ $0?.exposition }) { return exposition }
        return current.exposition
    }

    /// Adds a subscriber, called with every publication from now on.
    package func subscribe(_ subscriber: @escaping @Sendable (FleetState<C>) -> Void) {
        hub.subscribers.withLock { $0.append(subscriber) }
    }
}
