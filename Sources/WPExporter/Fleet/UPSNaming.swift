import Synchronization
import WPClient
import WPCollector
import WPConfig
import WPEnergy
import WPFrontEnd
import WPNUT
import WPStorage

/// The one naming of the fleet's UPSs, shared by every front end that names them (the NUT
/// server's `rack-a@host`, the SNMP agent's `community@rack-a`): applied to each publication
/// (``FleetState/Server/names``), so the front ends read the names instead of making them.
///
/// A name is the one configured for the device (`nut.ups.<device_id>.name`), else the one it
/// was given before (this run, or the previous one's from the data directory), else one derived
/// from its alias (``NUTNames/derived(from:)``: a valid NUT name), with `-2`, `-3`, … when
/// taken. Names are unique in any case across the fleet; a device keeps its name while devices
/// come and go (a monitor's `MONITOR name@host` must not move), and across restarts. The alias
/// of `nut.default_ups` (`ups`) is reserved: a device whose alias derives to it is named
/// `ups-2`, so the alias never hides a device; only the device it stands for may be named so.
/// A server that has not collected since the start lists the UPSs it served before
/// (``FleetState/Server/remembered``), as upsd lists a UPS whose driver is down.
final class UPSNaming: Sendable {
    /// What the configuration says of names.
    struct Settings: Sendable {
        /// Names by `device_id` (`nut.ups.<device_id>.name`).
        var names: [String: String] = [:]
        /// The alias `nut.default_ups` reserves (`ups`), and the device (id or name) it stands for.
        var defaultUPS: (alias: String, device: String)?

        /// The names of `nut.*`.
        init(_ nut: ExporterConfiguration.NUT) {
            names = nut.ups.compactMapValues(\.name)
            defaultUPS = nut.defaultUPS.map { (alias: "ups", device: $0) }
        }
    }

    private struct State {
        /// The configured names (a reload may change them).
        var settings: Settings
        /// Names given so far, by device key (``FleetState/key(server:device:)``); seeded
        /// from the stored names.
        var assigned: [String: String] = [:]
        /// The names and descriptions stored by the previous run, by device key.
        var remembered: [String: StoredUPSName] = [:]
    }

    private let state: Mutex<State>
    /// Where the names are kept (`nil`: not kept).
    private let memory: UPSNameMemory?

    /// - Parameter memory: keeps the names given in the data directory, and gives those of the
    ///   previous run.
    init(settings: Settings, memory: UPSNameMemory? = nil) {
        self.memory = memory
        var state = State(settings: settings)
        state.remembered = memory?.load() ?? [:]
        state.assigned = state.remembered.mapValues(\.name)
        self.state = Mutex(state)
    }

    /// Names every device of `servers` (``FleetState/Server/names``) and lists the UPSs of a
    /// server not collected since the start (``FleetState/Server/remembered``); keeps the names
    /// for the next save. CPU work under this naming's lock only.
    func name<C>(_ servers: inout [FleetState<C>.Server]) {
        let settings = state.withLock { $0.settings }
        let reserved: Set<String> = settings.defaultUPS.map { [$0.alias.lowercased()] } ?? []
        let configured = Set(settings.names.values.map { $0.lowercased() })
        let kept = state.withLock { state -> [String: StoredUPSName] in
            var taken: Set<String> = []
            // The names `assigned` holds, lower-cased, with how many keys hold each: counted once a
            // call and kept up to date, not remade for each device that needs a new name.
            var given: [String: Int] = [:]
            for name in state.assigned.values { given[name.lowercased(), default: 0] += 1 }
            var served: [String: StoredUPSName] = [:]
            for index in servers.indices {
                let server = servers[index]
                var names: [String: String] = [:]
                for reading in server.devices.readings {
                    let device = reading.device
                    let key = FleetState<C>.key(server: server.name, device: device.id)
                    let isDefault = settings.defaultUPS?.device == device.id
                    let name: String
                    if let configuredName = settings.names[device.id] {
                        name = configuredName
                    } else if let kept = state.assigned[key], !configured.contains(kept.lowercased()),
                              isDefault || !reserved.contains(kept.lowercased()), !taken.contains(kept.lowercased()) {
                        name = kept
                    } else {
                        name = Self.unique(NUTNames.derived(from: device.asset.alias),
                                           taken: { configured.contains($0) || given[$0] != nil || taken.contains($0)
                                                    || (!isDefault && reserved.contains($0)) })
                    }
                    guard taken.insert(name.lowercased()).inserted else { continue }
                    if let old = state.assigned.updateValue(name, forKey: key)?.lowercased() {
                        given[old] = given[old].flatMap { $0 > 1 ? $0 - 1 : nil }
                    }
                    given[name.lowercased(), default: 0] += 1
                    names[device.id] = name
                    served[key] = StoredUPSName(name: name, description: server.description(of: device))
                }
                var remembered: [RememberedUPS] = []
                if server.lastSuccess == nil {
                    let prefix = server.name.isEmpty ? nil : EnergyKey.prefix(server: server.name)
                    for (key, stored) in state.remembered.sorted(by: { $0.key < $1.key }) where served[key] == nil {
                        let device: String
                        if let prefix {
                            guard key.hasPrefix(prefix) else { continue }
                            device = String(key.dropFirst(prefix.count))
                        } else {
                            guard EnergyKey.split(key) == nil else { continue }
                            device = key
                        }
                        let name = settings.names[device] ?? stored.name
                        guard taken.insert(name.lowercased()).inserted else { continue }
                        remembered.append(RememberedUPS(device: device, name: name, description: stored.description))
                        served[key] = StoredUPSName(name: name, description: stored.description)
                    }
                }
                servers[index].names = names
                servers[index].remembered = remembered
            }
            return served
        }
        memory?.save(kept)
    }

    /// Names by `settings` from the next publication on (a reload changed `nut.*`): a
    /// configured name takes its device's at once; names given before stay as they are.
    func update(_ settings: Settings) {
        state.withLock { $0.settings = settings }
    }

    /// `base`, or `base-2`, … when taken (`taken` is asked of lower-cased names).
    private static func unique(_ base: String, taken: (String) -> Bool) -> String {
        var name = base
        var suffix = 2
        while taken(name.lowercased()) {
            name = "\(base)-\(suffix)"
            suffix += 1
        }
        return name
    }
}

/// What a device was served as: kept in the data directory, so a restart while WinPower is
/// unreachable still lists the UPS under its name (the NUT server accepts `LOGIN` for it).
struct StoredUPSName: Sendable, Equatable {
    /// The name (`rack-a`).
    var name: String
    /// Its description (alias, model, server).
    var description: String
}

/// The naming's section of the data directory (``StateSections``, section `nut-names`): one
/// record per device named, `[device key, name, description]`, written with the next save of
/// the state file (version 3's `n` lines, so the files of releases before the sections still
/// load).
struct UPSNameMemory: Sendable {
    /// The section's name.
    static let section = StateSections.version3Section

    private let sections: StateSections

    init(_ sections: StateSections) {
        self.sections = sections
    }

    /// The names the previous run gave, by device key; a record that is not three fields with a
    /// name is skipped.
    func load() -> [String: StoredUPSName] {
        var names: [String: StoredUPSName] = [:]
        for record in sections.records(Self.section) where record.count == 3 && !record[1].isEmpty {
            names[record[0]] = StoredUPSName(name: record[1], description: record[2])
        }
        return names
    }

    /// Keeps `names` for the next save (in memory: never waits for I/O).
    func save(_ names: [String: StoredUPSName]) {
        sections.replace(Self.section, with: names.keys.sorted().compactMap { key in
            names[key].map { [key, $0.name, $0.description] }
        })
    }
}
