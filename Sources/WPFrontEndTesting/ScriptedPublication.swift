import FoundationEssentials
import Synchronization
package import WPClient
import WPCollector
package import WPEnergy
package import WPFrontEnd

/// A fleet publication a test scripts, for a front end tested on its own (no exporter, no
/// collector): it hands the front end the states the test builds, numbered as the exporter's
/// publication numbers them, on the test's clock.
///
/// ```swift
/// let clock = ManualClock()
/// let publication = ScriptedPublication(clock: clock)
/// let source = NUTFleetSource(publication: publication, settings: NUTBridgeSettings(), version: "1")
/// publication.publish([.scripted(devices: [device], readAt: clock.now)])
/// clock.advance(by: .seconds(20))      // past the staleness window: the UPS is stale
/// ```
package final class ScriptedPublication<C: Clock>: FleetPublishing, Sendable where C.Duration == Duration {
    private struct State {
        var current: FleetState<C>
        var subscribers: [@Sendable (FleetState<C>) -> Void] = []
    }

    /// The clock the states' instants are on.
    package let clock: C
    private let state: Mutex<State>

    /// A publication whose state before the first ``publish(_:exposition:)`` is generation 0 with
    /// `servers`.
    package init(clock: C, servers: [FleetState<C>.Server] = []) {
        self.clock = clock
        state = Mutex(State(current: FleetState(publishedAt: clock.now, servers: servers,
                                                exposition: FleetExposition(snapshot: .empty))))
    }

    /// The latest state published (generation 0 before the first).
    package var current: FleetState<C> { state.withLock { $0.current } }

    /// Adds a subscriber, called with every publication from now on.
    package func subscribe(_ subscriber: @escaping @Sendable (FleetState<C>) -> Void) {
        state.withLock { $0.subscribers.append(subscriber) }
    }

    /// Publishes `servers` as the next generation at the clock's now, handed to every subscriber
    /// on the caller's thread before it returns.
    ///
    /// - Returns: the state handed.
    @discardableResult
    package func publish(_ servers: [FleetState<C>.Server],
                         exposition: FleetExposition = FleetExposition(snapshot: .empty)) -> FleetState<C> {
        let (published, subscribers) = state.withLock { state in
            state.current = FleetState(generation: state.current.generation + 1, publishedAt: clock.now,
                                       servers: servers, exposition: exposition)
            return (state.current, state.subscribers)
        }
        for subscriber in subscribers { subscriber(published) }
        return published
    }

    /// Hands `state` to every subscriber as it is, whatever its generation (a late delivery a
    /// front end must ignore), without making it the current one.
    package func deliver(_ state: FleetState<C>) {
        for subscriber in self.state.withLock({ $0.subscribers }) { subscriber(state) }
    }
}

extension FleetState.Server {
    /// A server's part of a publication for a test: `devices` all read at `readAt`, named
    /// `names` (by `device_id`; `ups-1`, `ups-2`, … in the devices' order for the others), a
    /// successful last collection at `lastSuccess` (by default `readAt`).
    ///
    /// - Parameters:
    ///   - name: `servers[].name`; empty for the server of a `winpower`-only configuration.
    ///   - stalenessWindow: how old a reading may be and still be served; 15 s (the
    ///     exporter's with a 5 s interval).
    ///   - totals: the energy totals served, by `device_id`.
    ///   - remembered: the UPSs it served before the start (with `lastSuccess: nil`).
    package static func scripted(name: String = "", devices: [Device], readAt: C.Instant,
                                 names: [String: String] = [:], stalenessWindow: Duration = .seconds(15),
                                 interval: Duration = .seconds(5), lastSuccess: C.Instant?? = nil,
                                 totals: [String: DeviceEnergy] = [:], remembered: [RememberedUPS] = [],
                                 target: String = "http://winpower.test:8081") -> Self {
        let sorted = devices.sorted { $0.id < $1.id }
        var given: [String: String] = [:]
        for (index, device) in devices.enumerated() { given[device.id] = names[device.id] ?? "ups-\(index + 1)" }
        let success = lastSuccess ?? readAt
        var health = CollectorHealth()
        health.deviceCount = devices.count
        if success != nil {
            // A finished, successful collection (its wall time is not what a front end judges by).
            health.lastFinished = Date(timeIntervalSince1970: 1_795_680_000)
            health.lastSuccess = health.lastFinished
            health.winPowerReachable = true
            health.authenticated = true
        }
        return Self(name: name, target: target, interval: interval, stalenessWindow: stalenessWindow,
                    energyKeyPrefix: name.isEmpty ? "" : EnergyKey.prefix(server: name),
                    devices: WinPowerCollector<C>.DeviceReadings(sorted.map { .init(device: $0, readAt: readAt) }),
                    health: health, lastSuccess: success, totals: totals, names: given, remembered: remembered)
    }
}
