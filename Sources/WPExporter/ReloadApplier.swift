import Synchronization
import WPClient
import WPConfig
import WPEnergy

/// Makes the WinPower client of a `servers` entry (on reload: a new or changed server).
package typealias ClientFactory = @Sendable (ServerEntry) throws -> any WinPowerClient

/// Applies a reloaded configuration to a running exporter.
///
/// With `servers`, the fleet changes server by server: an entry whose settings are unchanged
/// keeps its running pipeline (no collection skipped, its counters continue); a changed entry
/// gets a new client and pipeline, started only once the old pipeline has stopped (its
/// collection in flight finished, or abandoned at the graceful timeout and unable to record),
/// so a server never has two logins nor two collections at once; its energy totals continue
/// (they are keyed by the server's name); a removed one stops (its totals stay in the state
/// file); a new one starts at once.
/// A new entry with `energy_from` (a rename, ``ReloadRenames``) starts once the old server's
/// pipeline has stopped (its collection in flight finished) and the meter moved its totals
/// and saved them. Without `servers`, changed credentials (`winpower.username`,
/// `winpower.password`, or the contents of `winpower.password_file`) go to the running client;
/// other `winpower` changes need a restart. Switching between a `winpower`-only configuration
/// and `servers` needs a restart: the endpoints and the exposition are built for one shape or the other at startup.
/// What cannot change while running is kept and named
/// (``ConfigReloader/sectionsNeedingRestart(running:next:)``). Clients are all made and renames
/// checked before anything changes, so a reload applies completely or not at all.
package final class ReloadApplier<C: Clock>: Sendable where C.Duration == Duration {
    private struct Parts: Sendable {
        var running: RunningConfiguration?
        var fleet: ServerFleet<C>?
        var makeMember: Exporter<C>.MemberFactory?
        var merger: ExpositionMerger<C>?
        var clientFactory: ClientFactory?
        var meter: EnergyMeter<C>?
        /// The client of a `winpower`-only exporter (its credentials change live).
        var singleClient: (any WinPowerClient)?
    }

    private let parts = Mutex(Parts())

    package var running: RunningConfiguration? {
        get { parts.withLock { $0.running } }
        set { parts.withLock { $0.running = newValue } }
    }
    package var fleet: ServerFleet<C>? {
        get { parts.withLock { $0.fleet } }
        set { parts.withLock { $0.fleet = newValue } }
    }
    package var makeMember: Exporter<C>.MemberFactory? {
        get { parts.withLock { $0.makeMember } }
        set { parts.withLock { $0.makeMember = newValue } }
    }
    package var merger: ExpositionMerger<C>? {
        get { parts.withLock { $0.merger } }
        set { parts.withLock { $0.merger = newValue } }
    }
    package var clientFactory: ClientFactory? {
        get { parts.withLock { $0.clientFactory } }
        set { parts.withLock { $0.clientFactory = newValue } }
    }
    package var meter: EnergyMeter<C>? {
        get { parts.withLock { $0.meter } }
        set { parts.withLock { $0.meter = newValue } }
    }
    package var singleClient: (any WinPowerClient)? {
        get { parts.withLock { $0.singleClient } }
        set { parts.withLock { $0.singleClient = newValue } }
    }

    /// Applies `next`; called by one reload at a time.
    ///
    /// - Throws: the client factory's error for a server that cannot be set up, or
    ///   ``ReloadRenames/Refusal`` for an `energy_from` that cannot be honoured (nothing changed).
    package func apply(_ next: ExporterConfiguration) async throws -> ConfigReloader.Applied {
        let parts = self.parts.withLock { $0 }
        guard let running = parts.running else { return ConfigReloader.Applied(summary: "no change") }
        let current = running.value
        var needsRestart = ConfigReloader.sectionsNeedingRestart(running: current, next: next)
        var applied = current
        var summary = "no change to the servers"
        var warnings: [String] = []
        if current.servers.isEmpty != next.servers.isEmpty {
            needsRestart.append("servers (between one server and a servers list)")
        } else if current.servers.isEmpty {
            summary = "single server"
            if Self.withoutCredentials(current.winPower) != Self.withoutCredentials(next.winPower) {
                needsRestart.append("winpower")
            } else if current.winPower != next.winPower {
                // Only the credentials changed (a rotated password): the running client takes them.
                if let client = parts.singleClient as? any CredentialUpdating {
                    await client.updateCredentials(username: next.winPower.username ?? "",
                                                   password: next.winPower.password?.reveal() ?? "")
                    applied.winPower = next.winPower
                    summary = "single server: credentials changed, the next login uses them"
                } else {
                    needsRestart.append("winpower")
                }
            }
            if current.scheduler.collectionInterval != next.scheduler.collectionInterval {
                needsRestart.append("scheduler.collection_interval")
            }
        } else if let fleet = parts.fleet, let makeMember = parts.makeMember, let clientFactory = parts.clientFactory,
                  let meter = parts.meter {
            let renames = try ReloadRenames(running: Set(fleet.members.map(\.entry.name)), next: next,
                                            stored: ReloadRenames.servers(in: meter.totals.keys))
            let plan = try Self.plan(fleet.members, next, makeMember: makeMember, clientFactory: clientFactory)
            // A server configured anew under a name whose totals moved away records again.
            for name in plan.added { meter.reopen(server: name) }
            let changed = Set(plan.changed)
            fleet.replace(with: plan.members, deferring: renames.targets.union(changed))
            summary = plan.summary
            if !changed.isEmpty {
                // The new pipeline of a changed server starts once the old one has stopped.
                await fleet.awaitStopped(changed)
                fleet.start(changed)
            }
            if !renames.isEmpty {
                parts.merger?.publish()
                await fleet.awaitStopped(renames.sources)
                let moved = meter.rekey(closing: renames.sources) { renames.migration.moves($0).moves }
                fleet.start(renames.targets)
                summary += "; moved \(moved.moved) energy totals"
                for (server, count) in Self.countByServer(moved.skipped) {
                    let target = renames.migration.renames[server] ?? "the new entry"
                    warnings.append("servers[\(target)].energy_from: \(count) energy totals of \(server.debugDescription) "
                                    + "not moved: \(target) already holds totals for the same devices; both are kept, "
                                    + "those of \(server.debugDescription) stored but not exported")
                }
                do {
                    try await meter.save(timeout: Self.saveWait)
                } catch {
                    summary += " (not saved yet, retried next cycle: \(error))"
                }
            }
            // Servers removed without a successor keep their totals in the state file only.
            let continued = Set(renames.sources)
            let stored = meter.totals.keys
            for (server, count) in Self.countByServer(stored) where plan.removed.contains(server) && !continued.contains(server) {
                warnings.append("servers[\(server)] removed: its \(count) energy totals stay stored but are no longer "
                                + "exported; a new entry with energy_from: \(server) continues them")
            }
            parts.merger?.publish()
            applied.servers = plan.members.map(\.entry)
            applied.winPower = next.winPower
            applied.scheduler.collectionInterval = next.scheduler.collectionInterval
        } else if current.servers != next.servers || current.scheduler.collectionInterval != next.scheduler.collectionInterval {
            needsRestart.append("servers")
        }
        running.value = applied
        return ConfigReloader.Applied(summary: summary, needsRestart: needsRestart, warnings: warnings)
    }

    /// The number of keys per server name, sorted by name (unqualified keys are left out).
    package static func countByServer(_ keys: some Sequence<String>) -> [(String, Int)] {
        var counts: [String: Int] = [:]
        for key in keys {
            if let server = EnergyKey.split(key)?.server { counts[server, default: 0] += 1 }
        }
        return counts.sorted { $0.key < $1.key }
    }

    /// `settings` without the keys a running client can change (``CredentialUpdating``).
    package static func withoutCredentials(_ settings: ExporterConfiguration.WinPower) -> ExporterConfiguration.WinPower {
        var settings = settings
        settings.username = nil
        settings.password = nil
        settings.passwordFile = nil
        return settings
    }

    /// How long a reload waits for the save of moved energy totals before answering.
    package static var saveWait: Duration { .seconds(5) }

    private struct Plan {
        var members: [ServerFleet<C>.Member]
        var added: [String]
        var changed: [String]
        var removed: Set<String>
        var summary: String
    }

    private static func plan(_ current: [ServerFleet<C>.Member], _ next: ExporterConfiguration,
                             makeMember: Exporter<C>.MemberFactory, clientFactory: ClientFactory) throws -> Plan {
        let byName = Dictionary(current.map { ($0.entry.name, $0) }, uniquingKeysWith: { first, _ in first })
        var members: [ServerFleet<C>.Member] = []
        var (added, changed, kept): ([String], [String], Int) = ([], [], 0)
        for entry in next.servers {
            let interval = entry.collectionInterval ?? next.scheduler.collectionInterval
            if let old = byName[entry.name] {
                if old.entry == entry && old.interval == interval {
                    members.append(old)
                    kept += 1
                } else {
                    members.append(makeMember(entry, try clientFactory(entry), next))
                    changed.append(entry.name)
                }
            } else {
                members.append(makeMember(entry, try clientFactory(entry), next))
                added.append(entry.name)
            }
        }
        let removed = current.map(\.entry.name).filter { name in !next.servers.contains { $0.name == name } }
        var parts: [String] = []
        if !added.isEmpty { parts.append("added " + added.joined(separator: ", ")) }
        if !changed.isEmpty { parts.append("changed " + changed.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed " + removed.joined(separator: ", ")) }
        parts.append("\(kept) unchanged")
        return Plan(members: members, added: added, changed: changed, removed: Set(removed), summary: "servers: " + parts.joined(separator: "; "))
    }
}

/// The fleet, once made, for the merger that is created before it.
package final class FleetHolder<C: Clock>: Sendable where C.Duration == Duration {
    private let state = Mutex<ServerFleet<C>?>(nil)
    package var fleet: ServerFleet<C>? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
