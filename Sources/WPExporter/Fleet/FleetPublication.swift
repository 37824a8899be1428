import Synchronization
import WPCollector
import WPEnergy
import WPFrontEnd

extension FleetState {
    /// The fleet as it is now.
    init(_ pipelines: [ServerPipeline<C>]) {
        self.init(servers: pipelines.map { Server(name: $0.name, collector: $0.collector) })
    }
}

/// The one path from collections to the front ends, whatever the configuration's shape: the
/// server of a `winpower`-only configuration publishes at once, named servers through the
/// ``ExpositionMerger`` (at most once per its spacing). Each publication makes one
/// ``FleetState`` and hands it to every subscriber, on the publishing task, then runs
/// `afterCollection`.
///
/// A front end subscribes while the exporter is composed, before anything runs; subscribers
/// do CPU work that finishes (building views, queueing notifications), never I/O.
package final class FleetPublication<C: Clock>: FleetPublishing where C.Duration == Duration {
    private final class Hub: Sendable {
        let fleet: ServerFleet<C>
        let afterCollection: @Sendable () -> Void
        let subscribers = Mutex<[@Sendable (FleetState<C>) -> Void]>([])

        init(fleet: ServerFleet<C>, afterCollection: @escaping @Sendable () -> Void) {
            self.fleet = fleet
            self.afterCollection = afterCollection
        }

        /// The state made once for every subscriber, and not at all without one.
        func deliver() {
            let subscribers = self.subscribers.withLock { $0 }
            if !subscribers.isEmpty {
                let state = FleetState(fleet.pipelines)
                for subscriber in subscribers { subscriber(state) }
            }
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
        }, afterMerge: { hub.deliver() })
    }

    /// The publish function for the collector of `server` (a `servers` name, or empty for the
    /// server of a `winpower`-only configuration).
    package func publisher(server: String) -> @Sendable () -> Void {
        guard server.isEmpty else { return merger.publisher() }
        let hub = self.hub
        return { hub.deliver() }
    }

    /// Publishes again: a reload changed the servers (a merge for named servers).
    package func republish() {
        if hub.fleet.single == nil { merger.publish() } else { hub.deliver() }
    }

    /// The fleet as it is now, as a publication would hand it (a front end's state before the
    /// first publication).
    package var current: FleetState<C> { FleetState(hub.fleet.pipelines) }

    /// Adds a subscriber, called with every publication from now on.
    package func subscribe(_ subscriber: @escaping @Sendable (FleetState<C>) -> Void) {
        hub.subscribers.withLock { $0.append(subscriber) }
    }
}
