import Synchronization
import WPClient
package import WPEnergy
import WPCollector
package import WPConfig
package import WPFrontEnd
package import WPNUT

/// What the NUT bridge serves of each device besides its readings and name: thresholds and the
/// alias a fixed-name client (a Synology NAS asks for `ups`) reaches one device by.
package struct NUTBridgeSettings: Sendable, Equatable {
    /// Thresholds for every UPS without its own.
    package var thresholds = NUTThresholds()
    /// Thresholds by `device_id`.
    package var deviceThresholds: [String: NUTThresholds] = [:]
    /// `ups` (or another fixed name) answers for this device (`device_id` or NUT name), too.
    package var defaultUPS: (alias: String, device: String)?

    package init() {}

    /// The thresholds and default UPS of `nut.*`.
    package init(_ nut: ExporterConfiguration.NUT) {
        thresholds = NUTThresholds(chargeLow: Double(nut.batteryChargeLow),
                                   runtimeLow: Double(nut.batteryRuntimeLow.components.seconds))
        defaultUPS = nut.defaultUPS.map { (alias: "ups", device: $0) }
        deviceThresholds = nut.ups.compactMapValues { ups in
            guard ups.batteryChargeLow != nil || ups.batteryRuntimeLow != nil else { return nil }
            return NUTThresholds(chargeLow: Double(ups.batteryChargeLow ?? nut.batteryChargeLow),
                                 runtimeLow: Double((ups.batteryRuntimeLow ?? nut.batteryRuntimeLow).components.seconds))
        }
    }

    package static func == (lhs: NUTBridgeSettings, rhs: NUTBridgeSettings) -> Bool {
        lhs.thresholds == rhs.thresholds && lhs.deviceThresholds == rhs.deviceThresholds
            && lhs.defaultUPS?.alias == rhs.defaultUPS?.alias && lhs.defaultUPS?.device == rhs.defaultUPS?.device
    }
}

/// The NUT server's data: every device of every server in the fleet, from the fleet's latest
/// publication (``FleetState``; never from WinPower, nor from the pipelines), so a NUT client
/// sees what `/metrics` shows.
///
/// The UPS table is rebuilt once per published collection (the first NUT command after it),
/// under a lock held for that CPU work only; a command then costs a dictionary lookup and a
/// staleness check on the fleet's clock. Each UPS is served under the name the publication gives
/// it (``FleetState/Server/names``: the fleet's one naming, stable while devices come and go and
/// across restarts, shared with the SNMP agent). Started while a WinPower server is unreachable,
/// the bridge lists the UPSs it served before (``FleetState/Server/remembered``) and accepts
/// `LOGIN` for them, answering reads `ERR DRIVER-NOT-CONNECTED` (upsd with its driver down)
/// until that server's first collection.
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
        /// The generation of the publication the table was built from (each collection is a new one).
        var generation: UInt64 = .max
        var order: [String] = []
        /// By lower-cased NUT name: clients name UPSs in any case, as upsd allows.
        var entries: [String: Entry] = [:]
        /// The lower-cased NUT name of each device id (its first server's), for `nut.default_ups`.
        var byDevice: [String: String] = [:]
    }

    /// The latest publication: the table is built from it at the first command after it.
    private let latest: Mutex<FleetState<C>>
    /// The fleet's clock: readings are judged stale on it.
    private let clock: C
    private let settings: NUTBridgeSettings
    private let version: String
    /// The battery health meter now (`RB` where a battery's measured health is low).
    private let batteryHealth: @Sendable () -> BatteryHealthMeter?
    private let cache = Mutex(Cache())

    package init(state: FleetState<C>, clock: C, settings: NUTBridgeSettings, version: String,
                 batteryHealth: @escaping @Sendable () -> BatteryHealthMeter? = { nil }) {
        latest = Mutex(state)
        self.clock = clock
        self.settings = settings
        self.version = version
        self.batteryHealth = batteryHealth
    }

    /// A source subscribed to `publication`, starting from the fleet as it is now.
    package convenience init(publication: some FleetPublishing<C>, settings: NUTBridgeSettings, version: String,
                             batteryHealth: @escaping @Sendable () -> BatteryHealthMeter? = { nil }) {
        self.init(state: publication.current, clock: publication.clock, settings: settings, version: version,
                  batteryHealth: batteryHealth)
        publication.subscribe { [weak self] in self?.published($0) }
    }

    /// Takes a publication: kept, the table rebuilt from it when a client next asks (so a
    /// collection nobody reads over NUT costs nothing here); one not newer than the one kept is
    /// ignored. Never waits for I/O.
    package func published(_ state: FleetState<C>) {
        latest.withLock { latest in
            if state.generation > latest.generation { latest = state }
        }
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

    /// Runs `body` on the table, rebuilt first when a publication came since.
    private func current<T>(_ body: (Cache) -> T) -> T {
        let state = latest.withLock { $0 }
        return cache.withLock { cache in
            if cache.generation != state.generation {
                rebuild(&cache, servers: state.servers)
                cache.generation = state.generation
            }
            return body(cache)
        }
    }

    private func rebuild(_ cache: inout Cache, servers: [FleetState<C>.Server]) {
        var order: [String] = []
        var entries: [String: Entry] = [:]
        var byDevice: [String: String] = [:]
        let meter = batteryHealth()
        for server in servers {
            for reading in server.devices.readings {
                let device = reading.device
                guard let name = server.names[device.id], entries[name.lowercased()] == nil else { continue }
                let thresholds = settings.deviceThresholds[device.id] ?? settings.thresholds
                let variables = NUTVariables.of(device, thresholds: thresholds, driverVersion: version,
                                                replaceBattery: meter?.needsReplacement(server.energyKeyPrefix + device.id, of: device) ?? false)
                let ups = NUTUPS(name: name, description: server.description(of: device), variables: variables)
                entries[name.lowercased()] = Entry(ups: ups, readAt: reading.readAt, stalenessWindow: server.stalenessWindow,
                                                   disconnected: device.connected == false)
                order.append(name.lowercased())
                if byDevice[device.id] == nil { byDevice[device.id] = name.lowercased() }
            }
            // Not collected since the start (WinPower unreachable): the UPSs served before, as
            // upsd lists a UPS whose driver is down.
            for ups in server.remembered where entries[ups.name.lowercased()] == nil {
                entries[ups.name.lowercased()] = Entry(ups: NUTUPS(name: ups.name, description: ups.description, variables: []),
                                                       readAt: nil, stalenessWindow: server.stalenessWindow, disconnected: false)
                order.append(ups.name.lowercased())
                if byDevice[ups.device] == nil { byDevice[ups.device] = ups.name.lowercased() }
            }
        }
        cache.order = order
        cache.entries = entries
        cache.byDevice = byDevice
    }
}
