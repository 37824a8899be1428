import Synchronization
import WPClient
package import WPConfig
package import WPEnergy

/// Applies a reloaded configuration to a running exporter.
///
/// The fleet changes server by server, whatever the shape: a `winpower`-only configuration is
/// a fleet of one unnamed server (``Exporter/singleServerEntry(_:)``), so switching between
/// `winpower` and `servers` stops the one and starts the others like any other change. An
/// entry whose settings are unchanged keeps its running pipeline (no collection skipped, its
/// counters continue); a changed entry gets a new client and pipeline, started only once the
/// old pipeline has stopped (its collection in flight finished, or abandoned at the graceful
/// timeout and unable to record), so a server never has two logins nor two collections at
/// once; its energy totals continue (they are keyed by the server's name); a removed one stops
/// (its totals stay in the state file); a new one starts at once. When only the credentials of
/// a server changed (`username`, `password`, or the contents of `password_file`) and its
/// client can take them (``CredentialUpdating``), the running pipeline keeps going and the next
/// login uses them.
/// A new entry with `energy_from` (a rename, ``ReloadRenames``, or `energy_from: winpower` after
/// a `winpower`-only configuration) starts once the old server's pipeline has stopped (its
/// collection in flight finished) and the meter moved its totals and saved them.
/// A front end whose section changed (`nut`, `snmp`, `push`: ``FrontEndFactory/changed``) is
/// made again from the new configuration and replaces the running one (``FrontEndList``).
/// What cannot change while running is kept and named
/// (``ConfigReloader/sectionsNeedingRestart(running:next:)``). Clients and front ends are all
/// made and renames checked before anything changes, so a reload applies completely or not at all.
package final class ReloadApplier<C: Clock>: Sendable where C.Duration == Duration {
    private let running: RunningConfiguration
    private let fleet: ServerFleet<C>
    private let publication: FleetPublication<C>
    private let meter: EnergyMeter<C>
    private let frontEnds: FrontEndList<C>
    private let makeMember: ServerFleet<C>.MemberFactory
    private let makeClient: ClientFactory
    /// Whether the exporter serves its own listener (`run`), so its settings need a restart.
    private let ownListener: @Sendable () -> Bool

    package init(running: RunningConfiguration, fleet: ServerFleet<C>, publication: FleetPublication<C>, meter: EnergyMeter<C>,
                 frontEnds: FrontEndList<C>, makeMember: @escaping ServerFleet<C>.MemberFactory, makeClient: @escaping ClientFactory,
                 ownListener: @escaping @Sendable () -> Bool = { true }) {
        self.frontEnds = frontEnds
        self.ownListener = ownListener
        self.running = running
        self.fleet = fleet
        self.publication = publication
        self.meter = meter
        self.makeMember = makeMember
        self.makeClient = makeClient
    }

    /// Applies `next`; called by one reload at a time.
    ///
    /// - Throws: ``ReloadRefusal`` for a server whose client cannot be made, an `energy_from`
    ///   that cannot be honoured, or a front end whose changed section cannot be served
    ///   (nothing changed).
    package func apply(_ next: ExporterConfiguration) async throws(ReloadRefusal) -> ConfigReloader.Applied {
        let current = running.value
        let needsRestart = ConfigReloader.sectionsNeedingRestart(running: current, next: next, ownListener: ownListener())
        let applied = ConfigReloader.applicable(running: current, next: next, ownListener: ownListener())
        var warnings: [String] = []
        let members = fleet.members
        let renames: ReloadRenames
        do {
            renames = try ReloadRenames(running: Set(members.map(\.entry.name)), next: next,
                                        stored: ReloadRenames.servers(in: meter.totals.keys))
        } catch {
            throw .energyFrom(error as? ReloadRenames.Refusal ?? ReloadRenames.Refusal(problems: []))
        }
        let plan = try await Self.plan(members, next, makeMember: makeMember, makeClient: makeClient)
        // The front ends of the sections that changed, made before anything changes (the last
        // step that can refuse), installed once the servers are.
        let remade = try frontEnds.prepare(running: current, next: next)
        // A server configured anew under a name whose totals moved away records again.
        for name in plan.added { meter.reopen(server: name) }
        let changed = Set(plan.changed)
        fleet.replace(with: plan.members, deferring: renames.targets.union(changed))
        var summary = plan.summary
        if !changed.isEmpty {
            // The new pipeline of a changed server starts once the old one has stopped.
            await fleet.awaitStopped(changed)
            fleet.start(changed)
        }
        if !renames.isEmpty {
            publication.republish()
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
        for (server, count) in Self.countByServer(meter.totals.keys)
        where plan.removed.contains(server) && !continued.contains(server) {
            warnings.append("servers[\(server)] removed: its \(count) energy totals stay stored but are no longer "
                            + "exported; a new entry with energy_from: \(server) continues them")
        }
        publication.rename(UPSNaming.Settings(next.nut))
        publication.republish()
        if !remade.isEmpty {
            warnings += await frontEnds.install(remade)
            summary += "; restarted \(remade.sections.joined(separator: ", "))"
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

    /// The members `next` asks for: unchanged ones kept, a server whose credentials alone
    /// changed kept with its client told the new ones, every other change a new member.
    private static func plan(_ current: [ServerFleet<C>.Member], _ next: ExporterConfiguration,
                             makeMember: ServerFleet<C>.MemberFactory,
                             makeClient: ClientFactory) async throws(ReloadRefusal) -> Plan {
        let byName = Dictionary(current.map { ($0.entry.name, $0) }, uniquingKeysWith: { first, _ in first })
        func made(_ entry: ServerEntry) throws(ReloadRefusal) -> ServerFleet<C>.Member {
            do {
                return makeMember(entry, try makeClient(entry), next)
            } catch {
                throw .client(server: entry.name, reason: "\(error)")
            }
        }
        var members: [ServerFleet<C>.Member] = []
        var (added, changed, kept, credentials): ([String], [String], Int, [String]) = ([], [], 0, [])
        var updates: [(any CredentialUpdating, ExporterConfiguration.WinPower)] = []
        for entry in Exporter<C>.serverEntries(next) {
            let interval = entry.collectionInterval ?? next.scheduler.collectionInterval
            guard var old = byName[entry.name] else {
                members.append(try made(entry))
                added.append(entry.name)
                continue
            }
            if old.entry == entry && old.interval == interval {
                members.append(old)
                kept += 1
            } else if old.interval == interval, Self.sameButCredentials(old.entry, entry),
                      let client = old.client as? any CredentialUpdating {
                updates.append((client, entry.winPower))
                old.entry = entry
                members.append(old)
                credentials.append(entry.name)
            } else {
                members.append(try made(entry))
                changed.append(entry.name)
            }
        }
        // Every client is made: nothing can fail from here on.
        for (client, settings) in updates {
            await client.updateCredentials(username: settings.username ?? "", password: settings.password?.reveal() ?? "")
        }
        let names = Set(members.map(\.entry.name))
        let removed = current.map(\.entry.name).filter { !names.contains($0) }
        return Plan(members: members, added: added, changed: changed, removed: Set(removed),
                    summary: summary(single: (current.map(\.entry.name) + names).allSatisfy(\.isEmpty),
                                     added: added, changed: changed, credentials: credentials, removed: removed, kept: kept))
    }

    /// One line: `servers: added b; changed a; 1 unchanged`, or, when the unnamed server of a
    /// `winpower`-only configuration is all there was and is, `single server: …`.
    private static func summary(single: Bool, added: [String], changed: [String], credentials: [String],
                                removed: [String], kept: Int) -> String {
        func names(_ list: [String]) -> String { list.map { $0.isEmpty ? "winpower" : $0 }.joined(separator: ", ") }
        if single {
            if !credentials.isEmpty { return "single server: credentials changed, the next login uses them" }
            if !changed.isEmpty { return "single server: changed, its collection restarted with the new settings" }
            return "single server: no change"
        }
        var parts: [String] = []
        if !added.isEmpty { parts.append("added " + names(added)) }
        if !changed.isEmpty { parts.append("changed " + names(changed)) }
        if !credentials.isEmpty { parts.append("credentials changed for " + names(credentials)) }
        if !removed.isEmpty { parts.append("removed " + names(removed)) }
        parts.append("\(kept) unchanged")
        return "servers: " + parts.joined(separator: "; ")
    }

    /// Whether `old` and `new` differ at most in their credentials.
    private static func sameButCredentials(_ old: ServerEntry, _ new: ServerEntry) -> Bool {
        var (old, new) = (old, new)
        old.winPower = withoutCredentials(old.winPower)
        new.winPower = withoutCredentials(new.winPower)
        return old == new
    }
}
