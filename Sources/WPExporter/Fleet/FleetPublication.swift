import Synchronization
import WPCollector
import WPEnergy
package import WPFrontEnd

extension FleetState.Server {
    /// The server `name` as `collector` is now, with the meter's served totals of its devices.
    init(name: String, collector: WinPowerCollector<C>, meter: EnergyMeter<C>) {
        let configuration = collector.configuration
        self.init(name: name, target: configuration.target, labels: configuration.seriesLabels,
                  interval: configuration.interval, stalenessWindow: configuration.stalenessWindow,
                  energyKeyPrefix: configuration.energyKeyPrefix, devices: collector.devices, health: collector.health,
                  lastSuccess: collector.lastSuccess, snapshot: collector.snapshot,
                  totals: meter.servedTotals(keyPrefix: configuration.energyKeyPrefix))
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
/// ``FleetState`` (the servers, their readings and the exposition `/metrics` serves) with the
/// next generation number, keeps it as the latest (``current``: what the HTTP endpoints read)
/// and hands it to every subscriber, on the publishing task, then runs `afterCollection`. Two
/// publications at once are handed over one after the other, in generation order; one that
/// finds a newer already handed over is not handed at all (it is kept by nobody: the newer
/// holds everything it did).
///
/// A front end subscribes while the exporter is composed, before anything runs; subscribers
/// do CPU work that finishes (building views, queueing notifications), never I/O.
package final class FleetPublication<C: Clock>: FleetPublishing where C.Duration == Duration {
    private final class Hub: Sendable {
        let fleet: ServerFleet<C>
        let meter: EnergyMeter<C>
        let naming: UPSNaming
        let clock: C
        let afterCollection: @Sendable () -> Void
        /// Every subscriber, with its owner (0: the exporter's own, kept; a front end's scope
        /// otherwise, removed with it).
        let subscribers = Mutex<[(owner: UInt64, subscriber: @Sendable (FleetState<C>) -> Void)]>([])
        /// The next scope's owner number.
        let nextOwner = Atomic<UInt64>(1)
        /// The latest publication; `nil` before the first. Held only to read or replace it (a
        /// scrape reads it): states are built outside it.
        let latest = Mutex<FleetState<C>?>(nil)
        /// The generation of the last state built.
        let generations = Atomic<UInt64>(0)
        /// The generation last handed to the subscribers; held while they run, so two
        /// publications reach them one after the other (subscribers do CPU work only).
        let handed = Mutex<UInt64>(0)

        init(fleet: ServerFleet<C>, meter: EnergyMeter<C>, naming: UPSNaming, clock: C,
             afterCollection: @escaping @Sendable () -> Void) {
            self.fleet = fleet
            self.meter = meter
            self.naming = naming
            self.clock = clock
            self.afterCollection = afterCollection
        }

        /// The fleet now as generation `generation`, with the single server's own snapshot,
        /// else `merged`, else what `previous` served (a late publish of a server a reload
        /// removed, before the next merge).
        func state(generation: UInt64, merged: FleetExposition?, previous: FleetState<C>?) -> FleetState<C> {
            let exposition = fleet.single.map { FleetExposition(snapshot: $0.collector.snapshot) }
                ?? merged ?? previous?.exposition ?? FleetExposition(snapshot: .empty)
            var servers = fleet.pipelines.map { FleetState.Server(name: $0.name, collector: $0.collector, meter: meter) }
            naming.name(&servers)
            return FleetState(generation: generation, publishedAt: clock.now, servers: servers, exposition: exposition)
        }

        /// Makes the state with the next generation and keeps it as the latest unless a newer
        /// one is kept already (two publications at once never leave the older one kept), then
        /// hands it to every subscriber unless a newer one was handed first. The state is built
        /// outside the lock a scrape takes to read the latest.
        func deliver(merged: FleetExposition?) {
            let generation = generations.add(1, ordering: .relaxed).newValue
            let previous = merged == nil ? latest.withLock { $0 } : nil
            let state = self.state(generation: generation, merged: merged, previous: previous)
            latest.withLock { latest in
                if (latest?.generation ?? 0) < generation { latest = state }
            }
            let subscribers = self.subscribers.withLock { $0 }
            handed.withLock { handed in
                guard state.generation > handed else { return }
                handed = state.generation
                for (_, subscriber) in subscribers { subscriber(state) }
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
    ///   - naming: names the UPSs of each publication (``UPSNaming``).
    ///   - spacing: the minimum time between two merges (``ExpositionMerger``).
    ///   - afterCollection: runs after each publication (the command-line tool returns freed
    ///     heap memory to the system there).
    init(fleet: ServerFleet<C>, meter: EnergyMeter<C>, naming: UPSNaming, spacing: Duration,
         clock: C, afterCollection: @escaping @Sendable () -> Void) {
        let hub = Hub(fleet: fleet, meter: meter, naming: naming, clock: clock, afterCollection: afterCollection)
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

    /// Names the UPSs by `settings` from the next publication on (a reload changed `nut.*`).
    func rename(_ settings: UPSNaming.Settings) {
        hub.naming.update(settings)
    }

    /// The latest publication; before the first, the fleet as it is now (the single server's
    /// snapshot, or the last merge).
    package var current: FleetState<C> {
        if let latest = hub.latest.withLock({ $0 }) { return latest }
        return hub.state(generation: 0, merged: FleetExposition(merger.latest), previous: nil)
    }

    /// The exposition of ``current``, read without the rest of the state (a scrape's one read).
    package var exposition: FleetExposition {
        if let exposition = hub.latest.withLock({ $0?.exposition }) { return exposition }
        return current.exposition
    }

    /// The fleet's clock.
    package var clock: C { hub.clock }

    /// Adds a subscriber, called with every publication from now on.
    package func subscribe(_ subscriber: @escaping @Sendable (FleetState<C>) -> Void) {
        hub.subscribers.withLock { $0.append((0, subscriber)) }
    }

    /// A view of the publication for one front end: what it subscribes through the view stops
    /// being called once the view ends (``ScopedPublication/end()``: the front end was replaced
    /// or discarded).
    package func scoped() -> ScopedPublication<C> {
        ScopedPublication(publication: self, owner: hub.nextOwner.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    fileprivate func subscribe(_ subscriber: @escaping @Sendable (FleetState<C>) -> Void, owner: UInt64) {
        hub.subscribers.withLock { $0.append((owner, subscriber)) }
    }

    fileprivate func unsubscribe(owner: UInt64) {
        hub.subscribers.withLock { $0.removeAll { $0.owner == owner } }
    }
}

/// One front end's view of the fleet's publication (``FleetPublication/scoped()``): the same
/// states, its subscriptions removed when it ends.
package final class ScopedPublication<C: Clock>: FleetPublishing where C.Duration == Duration {
    private let publication: FleetPublication<C>
    private let owner: UInt64
    private let ended = Atomic(false)

    fileprivate init(publication: FleetPublication<C>, owner: UInt64) {
        self.publication = publication
        self.owner = owner
    }

    package var clock: C { publication.clock }
    package var current: FleetState<C> { publication.current }

    /// Adds a subscriber until ``end()`` (none after it).
    package func subscribe(_ subscriber: @escaping @Sendable (FleetState<C>) -> Void) {
        guard !ended.load(ordering: .acquiring) else { return }
        publication.subscribe(subscriber, owner: owner)
    }

    /// Removes every subscriber added through this view; a publication being handed over may
    /// still reach them once.
    package func end() {
        ended.store(true, ordering: .releasing)
        publication.unsubscribe(owner: owner)
    }
}
