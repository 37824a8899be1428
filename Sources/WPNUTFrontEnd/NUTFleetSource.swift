import Synchronization
import WPClient
import WPCollector
package import WPConfig
import WPEnergy
package import WPFrontEnd
package import WPNUT
import WPStorage

/// What the NUT bridge serves of each device besides its readings: names, thresholds and the
/// alias a fixed-name client (a Synology NAS asks for `ups`) reaches one device by.
package struct NUTBridgeSettings: Sendable, Equatable {
    /// NUT names by `device_id` (the rest are derived from aliases, ``NUTNames``).
    package var names: [String: String] = [:]
    /// Thresholds for every UPS without its own.
    package var thresholds = NUTThresholds()
    /// Thresholds by `device_id`.
    package var deviceThresholds: [String: NUTThresholds] = [:]
    /// `ups` (or another fixed name) answers for this device (`device_id` or NUT name), too.
    package var defaultUPS: (alias: String, device: String)?

    package init() {}

    /// The names and thresholds of `nut.*`.
    package init(_ nut: ExporterConfiguration.NUT) {
        thresholds = NUTThresholds(chargeLow: Double(nut.batteryChargeLow),
                                   runtimeLow: Double(nut.batteryRuntimeLow.components.seconds))
        defaultUPS = nut.defaultUPS.map { (alias: "ups", device: $0) }
        names = nut.ups.compactMapValues(\.name)
        deviceThresholds = nut.ups.compactMapValues { ups in
            guard ups.batteryChargeLow != nil || ups.batteryRuntimeLow != nil else { return nil }
            return NUTThresholds(chargeLow: Double(ups.batteryChargeLow ?? nut.batteryChargeLow),
                                 runtimeLow: Double((ups.batteryRuntimeLow ?? nut.batteryRuntimeLow).components.seconds))
        }
    }

    package static func == (lhs: NUTBridgeSettings, rhs: NUTBridgeSettings) -> Bool {
        lhs.names == rhs.names && lhs.thresholds == rhs.thresholds && lhs.deviceThresholds == rhs.deviceThresholds
            && lhs.defaultUPS?.alias == rhs.defaultUPS?.alias && lhs.defaultUPS?.device == rhs.defaultUPS?.device
    }
}

/// The NUT server's data: every device of every server in the fleet, from the fleet's latest
/// publication (``FleetState``; never from WinPower, nor from the pipelines), so a NUT client
/// sees what `/metrics` shows.
///
/// The UPS table is rebuilt once per published collection (the first NUT command after it),
/// under a lock held for that CPU work only; a command then costs a dictionary lookup and a
/// staleness check on the fleet's clock. A device keeps its NUT name, even when devices come
/// and go (a monitor's `MONITOR name@host` must not move), and across restarts: the names
/// served are kept in the data directory (``NUTNameMemory``). Started while
/// a WinPower server is unreachable, the bridge lists the UPSs it served before from there and
/// accepts `LOGIN` for them, answering reads `ERR DRIVER-NOT-CONNECTED` (upsd with its driver
/// down) until that server's first collection. Names set in the configuration never move.
package final class NUTFleetSource<C: Clock>: NUTDataSource where C.Duration == Duration {
    private struct Entry {
        var ups: NUTUPS
        /// `nil`: a UPS remembered from before the start, no reading yet.
        var readAt: C.Instant?
        /// Its server's staleness window.
        var stalenessWindow: Duration
        var disconnected: Bool
    }

    private struct Cache {
        /// The readings each entry was built from, by server, to see a new collection.
        var built: [ObjectIdentifier] = []
        var order: [String] = []
        /// By lower-cased NUT name: clients name UPSs in any case, as upsd allows.
        var entries: [String: Entry] = [:]
        /// Names given so far, by device key (``NUTFleetSource/key(server:device:)``); kept
        /// while running, seeded from the stored names.
        var assigned: [String: String] = [:]
        /// The names and descriptions stored by the previous run, by device key; served while
        /// their server has not collected since the start.
        var remembered: [String: StoredNUTName] = [:]
        /// The lower-cased NUT name of each device id (its first server's), for `nut.default_ups`.
        var byDevice: [String: String] = [:]
        /// The name served for each device key, in the order listed (the SNMP agent's names).
        var served: [(key: String, name: String)] = []
    }

    /// The latest publication: the table is built from it at the first command after it.
    private let latest: Mutex<FleetState<C>>
    /// The fleet's clock: readings are judged stale on it.
    private let clock: C
    private let settings: Mutex<NUTBridgeSettings>
    private let version: String
    private let cache: Mutex<Cache>
    /// Where the names served are kept (`nil`: not kept).
    private let memory: NUTNameMemory?

    /// - Parameter memory: keeps the names served in the data directory, and gives those of the
    ///   previous run.
    package init(state: FleetState<C>, clock: C, settings: NUTBridgeSettings, version: String, memory: NUTNameMemory? = nil) {
        latest = Mutex(state)
        self.clock = clock
        self.settings = Mutex(settings)
        self.version = version
        self.memory = memory
        var cache = Cache()
        cache.remembered = memory?.load() ?? [:]
        cache.assigned = cache.remembered.mapValues(\.name)
        self.cache = Mutex(cache)
    }

    /// A source subscribed to `publication`, starting from the fleet as it is now.
    package convenience init(publication: some FleetPublishing<C>, settings: NUTBridgeSettings, version: String,
                             memory: NUTNameMemory? = nil) {
        self.init(state: publication.current, clock: publication.clock, settings: settings, version: version, memory: memory)
        publication.subscribe { [weak self] in self?.published($0) }
    }

    /// Takes a publication: kept, the table rebuilt from it when a client next asks (so a
    /// collection nobody reads over NUT costs nothing here); one older than the one kept is
    /// ignored. Never waits for I/O.
    package func published(_ state: FleetState<C>) {
        latest.withLock { latest in
            if state.generation >= latest.generation { latest = state }
        }
    }

    /// A device's key, as the energy state keys it: the device id for the unnamed server,
    /// `server` + U+001F + id otherwise.
    package static func key(server: String, device: String) -> String {
        server.isEmpty ? device : EnergyKey.qualified(server: server, device: device)
    }

    /// The name each device is served under, by device key (``key(server:device:)``), in the
    /// order listed: the SNMP agent names its UPSs as NUT does.
    package func servedNames() -> [(key: String, name: String)] {
        current { $0.served }
    }

    package func upsList() -> [NUTUPS] {
        let now = clock.now
        return current { cache in cache.order.compactMap { cache.entries[$0].map { Self.served($0, at: now) } } }
    }

    /// The UPS named `name` in any case (its canonical name in ``NUTUPS/name``), or, for the
    /// alias `nut.default_ups` gives (`ups`), the device it names: the same UPS under its own
    /// name, so logins, `FSD` and `LIST CLIENT` count it once whichever name a client used.
    package func ups(named name: String) -> NUTUPS? {
        let key = name.lowercased()
        let now = clock.now
        return current { cache in
            let settings = self.settings.withLock { $0 }
            if let entry = cache.entries[key] { return Self.served(entry, at: now) }
            guard let alias = settings.defaultUPS, alias.alias.lowercased() == key else { return nil }
            let target = cache.entries[alias.device.lowercased()] ?? cache.byDevice[alias.device].flatMap { cache.entries[$0] }
            return target.map { Self.served($0, at: now) }
        }
    }

    /// `entry` as served at `now`: stale when its reading is older than its server's staleness
    /// window (upsd's `MAXAGE`: one failed collection does not make it stale, a reading older
    /// than `max(3 × interval, 15 s)` does) or the device is disconnected. (A server a reload
    /// removed is gone from the publication the reload makes.)
    private static func served(_ entry: Entry, at now: C.Instant) -> NUTUPS {
        var ups = entry.ups
        guard let readAt = entry.readAt else {
            ups.availability = .driverNotConnected
            return ups
        }
        if entry.disconnected || readAt.duration(to: now) > entry.stalenessWindow {
            ups.availability = .stale
        }
        return ups
    }

    /// Runs `body` on the table, rebuilt first when a publication brought a collection since.
    private func current<T>(_ body: (Cache) -> T) -> T {
        let state = latest.withLock { $0 }
        let identities = state.servers.map { ObjectIdentifier($0.devices) }
        let settings = self.settings.withLock { $0 }
        return cache.withLock { cache in
            if cache.built != identities {
                rebuild(&cache, servers: state.servers, settings: settings)
                cache.built = identities
            }
            return body(cache)
        }
    }

    private func rebuild(_ cache: inout Cache, servers: [FleetState<C>.Server], settings: NUTBridgeSettings) {
        var order: [String] = []
        var entries: [String: Entry] = [:]
        var byDevice: [String: String] = [:]
        // The alias (`ups`) is reserved: a device whose alias derives to it is named `ups-2`, …
        // (a configured name cannot be it: validation refuses that), so the alias never hides a
        // device; only the device it stands for may be named so.
        let reserved = settings.defaultUPS.map { [$0.alias.lowercased()] } ?? []
        let configured = Set(settings.names.values.map { $0.lowercased() })
        var served: [String: StoredNUTName] = [:]
        for server in servers {
            for reading in server.devices.readings {
                let device = reading.device
                let key = Self.key(server: server.name, device: device.id)
                let isDefault = settings.defaultUPS?.device == device.id
                let name: String
                if let given = settings.names[device.id] {
                    name = given
                } else if let kept = cache.assigned[key], !configured.contains(kept.lowercased()),
                          isDefault || !reserved.contains(kept.lowercased()), entries[kept.lowercased()] == nil {
                    name = kept
                } else {
                    name = Self.unique(NUTNames.derived(from: device.asset.alias),
                                       taken: configured.union(cache.assigned.values.map { $0.lowercased() }).union(entries.keys)
                                           .union(isDefault ? [] : reserved))
                }
                guard entries[name.lowercased()] == nil else { continue }
                cache.assigned[key] = name
                let thresholds = settings.deviceThresholds[device.id] ?? settings.thresholds
                let variables = NUTVariables.of(device, thresholds: thresholds, driverVersion: version)
                let model = device.asset.model.map { " (\($0))" } ?? ""
                let place = server.name.isEmpty ? "" : " on \(server.name)"
                let ups = NUTUPS(name: name, description: (device.asset.alias ?? device.id) + model + place,
                                 variables: variables)
                entries[name.lowercased()] = Entry(ups: ups, readAt: reading.readAt, stalenessWindow: server.stalenessWindow,
                                                   disconnected: device.connected == false)
                order.append(name.lowercased())
                if byDevice[device.id] == nil { byDevice[device.id] = name.lowercased() }
                served[key] = StoredNUTName(name: name, description: ups.description)
            }
            // Not collected since the start (WinPower unreachable): the UPSs served before, as
            // upsd lists a UPS whose driver is down.
            guard server.lastSuccess == nil else { continue }
            let prefix = server.name.isEmpty ? nil : EnergyKey.prefix(server: server.name)
            for (key, stored) in cache.remembered.sorted(by: { $0.key < $1.key }) where served[key] == nil {
                let device: String
                if let prefix {
                    guard key.hasPrefix(prefix) else { continue }
                    device = String(key.dropFirst(prefix.count))
                } else {
                    guard EnergyKey.split(key) == nil else { continue }
                    device = key
                }
                let name = settings.names[device] ?? stored.name
                guard entries[name.lowercased()] == nil else { continue }
                entries[name.lowercased()] = Entry(ups: NUTUPS(name: name, description: stored.description, variables: []),
                                                   readAt: nil, stalenessWindow: server.stalenessWindow, disconnected: false)
                order.append(name.lowercased())
                if byDevice[device] == nil { byDevice[device] = name.lowercased() }
                served[key] = StoredNUTName(name: name, description: stored.description)
            }
        }
        cache.order = order
        cache.entries = entries
        cache.byDevice = byDevice
        var byName: [String: (key: String, name: String)] = [:]
        for (key, stored) in served { byName[stored.name.lowercased()] = (key, stored.name) }
        cache.served = order.compactMap { byName[$0] }
        memory?.save(served)
    }

    /// `base`, or `base-2`, … when taken (`taken` holds lower-cased names).
    private static func unique(_ base: String, taken: Set<String>) -> String {
        var name = base
        var suffix = 2
        while taken.contains(name.lowercased()) {
            name = "\(base)-\(suffix)"
            suffix += 1
        }
        return name
    }
}
