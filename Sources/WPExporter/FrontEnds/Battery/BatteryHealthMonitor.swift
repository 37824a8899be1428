import FoundationEssentials
import Synchronization
import WPClient
import WPCollector
package import WPConfig
import WPEnergy
import WPFrontEnd
import WPLogging
import WPMetrics
import WPRuntime
import WPWallClock

/// `battery.*`: how each UPS's discharges are measured and judged into a battery health ratio,
/// and when a self-test is overdue (docs/battery.md, "Measured health").
package struct BatteryHealthSettings: ConfigSectionSettings {
    /// `battery.health_threshold`, percent.
    package var healthThreshold = 80
    /// `battery.min_measurements`.
    package var minMeasurements = 3
    /// `battery.min_charge_used`, percentage points.
    package var minChargeUsed = 10
    /// `battery.min_duration`.
    package var minDuration: Duration = .seconds(60)
    /// `battery.self_test_days`; 0: the UPS's own test period plus two days.
    package var selfTestDays = 0

    package init() {}

    package static let section = ConfigSection<BatteryHealthSettings>("battery", [
        .integer("health_threshold", \.healthThreshold, in: 1...99,
                 "Battery health (percent of the first measurement's energy per percent of charge, load-corrected) below which it is low: the UPS page says so, an event, NUT's RB and `winpower_device_battery_health_ratio` (docs/battery.md)."),
        .integer("min_measurements", \.minMeasurements, in: 2...BatteryHealthMeter.keptPerDevice,
                 "Comparable measurements (outages or self-tests) needed before a health ratio is given, the first one included; fewer: not enough data."),
        .integer("min_charge_used", \.minChargeUsed, in: 1...100,
                 "Least battery charge, in percentage points, a discharge must use to be a measurement (WinPower reports whole percents)."),
        .duration("min_duration", \.minDuration, "Shortest discharge on battery that is a measurement; at least 1s."),
        .integer("self_test_days", \.selfTestDays, in: 0...3_650,
                 "Days without a battery self-test after which a UPS's test is overdue (an event, the UPS page); 0: the UPS's own automatic test period plus two days (as the UPSBatteryTestOverdue alert), 31 days when it reports none."),
    ])

    package func problems() -> [ConfigDiagnostic] {
        minDuration < .seconds(1) ? [ConfigDiagnostic(key: "battery.min_duration", source: nil, message: "must be at least 1s")] : []
    }

    /// The meter's rules.
    var rules: BatteryHealthRules {
        var rules = BatteryHealthRules()
        rules.threshold = Double(healthThreshold) / 100
        rules.minMeasurements = minMeasurements
        rules.minChargeUsed = Double(minChargeUsed)
        rules.minSeconds = minDuration.inSeconds
        rules.selfTestDays = selfTestDays
        return rules
    }
}

/// The batteries' health on `/metrics` (per scrape, from the meter):
/// `winpower_device_battery_health_ratio{device_id,device_name}` for UPSs with enough
/// measurements and `winpower_device_battery_health_measurements{device_id,device_name}` for every
/// UPS published with one kept (with `server` when several servers are configured).
struct BatteryHealthMetrics: Collector {
    static let ratioName = "winpower_device_battery_health_ratio"
    static let countName = "winpower_device_battery_health_measurements"
    static let ratioHelp = "Battery health: the latest measurement's energy per percent of charge (load-corrected) over the first measurement's; only with enough measurements (docs/battery.md)."
    static let countHelp = "Comparable battery measurements (outages and self-tests long enough to tell) kept for the UPS, the first one included."

    /// A UPS as the latest publication had it: its name (`device_name`) and its battery's
    /// installation day, which starts its measurements.
    struct Published: Sendable {
        var name: String
        var installed: Date?
    }

    let meter: BatteryHealthMeter
    /// The UPSs published now, by device key.
    let published: @Sendable () -> [String: Published]
    let servers: Bool

    private var labelNames: [String] { (servers ? ["server"] : []) + ["device_id", "device_name"] }

    var descriptors: [MetricDescriptor] {
        [MetricDescriptor(name: Self.ratioName, help: Self.ratioHelp, type: .gauge, unit: "ratio", labelNames: labelNames),
         MetricDescriptor(name: Self.countName, help: Self.countHelp, type: .gauge, labelNames: labelNames)]
    }

    func collect() -> [MetricFamily] {
        let all = meter.all
        guard var ratio = try? MetricFamily(name: Self.ratioName, help: Self.ratioHelp, type: .gauge, unit: "ratio",
                                            labelNames: labelNames, capacity: all.count),
              var count = try? MetricFamily(name: Self.countName, help: Self.countHelp, type: .gauge, labelNames: labelNames,
                                            capacity: all.count) else {
            return []
        }
        let published = self.published()
        for key in all.keys.sorted() {
            let parts = EnergyKey.split(key)
            let (server, device) = (parts?.server, parts?.device ?? key)
            guard servers == (server != nil), let discharges = all[key], let ups = published[key] else { continue }
            let verdict = BatteryHealthVerdict.judge(discharges, installed: ups.installed, rules: meter.rules)
            let labels = (server.map { [$0] } ?? []) + [device, ups.name]
            try? count.append(labelValues: labels, value: Double(verdict.measurements))
            if let health = verdict.health { try? ratio.append(labelValues: labels, value: health) }
        }
        // A fleet without measurements renders exactly what it did without the meter.
        return [ratio, count].filter { !$0.samples.isEmpty }
    }
}

/// The batteries' measured health (`battery.*`): a front end of the list whose meter takes every
/// UPS's readings at each publication, keeps its discharges as measurements in the data
/// directory's sections, and serves their verdict on `/metrics` (``BatteryHealthMetrics``); the
/// status pages and the history's events find it as a ``BatteryHealthSource``. A reload that
/// changes `battery.*` or `energy.max_gap` makes it again: its successor continues from what its
/// predecessor kept, the discharge being watched included.
final class BatteryHealthMonitor: FrontEnd, BatteryHealthSource {
    let name = "the battery health meter"
    let batteryHealth: BatteryHealthMeter

    private init(meter: BatteryHealthMeter) {
        batteryHealth = meter
    }

    static func make<C: Clock>(_ context: FrontEndContext<C>) throws(FrontEndError) -> BatteryHealthMonitor
    where C.Duration == Duration {
        let configuration = context.configuration
        let logger = context.logger.component("battery")
        let settings = configuration[section: BatteryHealthSettings.self]
        let meter = BatteryHealthMeter(rules: settings.rules, maxGap: configuration.energy.maxGap.inSeconds,
                                       sections: context.sections)
        let restoration = meter.restoration
        if restoration.devices > 0, !context.atReload {
            logger.info("battery measurements continued from the data directory", ["devices": .int(restoration.devices)])
        }
        for problem in restoration.unreadable {
            logger.warn("a battery measurement record of the data directory is unreadable and dropped", ["record": .string(problem)])
        }
        // The UPSs of the latest publication.
        let published = Mutex<[String: BatteryHealthMetrics.Published]>([:])
        do {
            try context.registry.register(BatteryHealthMetrics(meter: meter, published: { published.withLock { $0 } },
                                                               servers: !configuration.servers.isEmpty))
        } catch {
            throw .metrics(error)
        }
        let wallClock = context.wallClock
        // The plausibility bound of the energy meter: a power reading above it is a glitch, and
        // the discharge it falls in has no energy (never a wrong one).
        let energy = ExporterSettings.energy(configuration.energy)
        // The instant of each UPS's reading last taken: a UPS missing from a collection is
        // published again with its previous reading, which is not taken twice.
        let taken = ReadingInstants<C.Instant>()
        context.publication.subscribe { state in
            let now = wallClock.now
            var readings: [String: BatteryReading] = [:]
            var upss: [String: BatteryHealthMetrics.Published] = [:]
            taken.instants.withLock { taken in
                for server in state.servers {
                    for reading in server.devices.readings {
                        let device = reading.device
                        let key = server.energyKeyPrefix + device.id
                        upss[key] = BatteryHealthMetrics.Published(name: device.asset.alias ?? "", installed: device.battery?.installedDate)
                        guard taken[key] != reading.readAt else { continue }
                        taken[key] = reading.readAt
                        let age = reading.readAt.duration(to: state.publishedAt).inSeconds
                        readings[key] = BatteryReading(
                            mode: device.connected == false ? nil : device.realtime.mode, charge: device.realtime.batCapacity,
                            watts: device.realtime.loadTotalWatt.flatMap { $0 <= energy.maxWatts(ratingVa: device.config.ratingVa) ? $0 : nil },
                            temperature: device.realtime.upsTemperature,
                            runtime: device.realtime.batRemainTime, time: now.addingTimeInterval(-max(0, age)))
                    }
                }
            }
            published.withLock { $0 = upss }
            let measured = meter.record(readings, installed: upss.compactMapValues(\.installed), at: now)
            for (key, discharge) in measured.sorted(by: { $0.key < $1.key }) {
                logger.info("battery measured", ["device": .string(EnergyKey.split(key)?.device ?? key),
                                                 "kind": .string(discharge.kind.rawValue),
                                                 "seconds": .double(discharge.seconds), "charge_used": .double(discharge.chargeUsed)])
            }
        }
        return BatteryHealthMonitor(meter: meter)
    }

    /// Nothing to serve: the meter works in its subscriber. Returns when cancelled.
    func run() async throws {
        await untilCancelled()
    }
}

/// The instant of each UPS's reading last taken, in a class of its own: Swift 6.0's IRGen fails
/// an assertion on a local `Mutex` of a generic type captured by an escaping closure.
private final class ReadingInstants<Instant: Sendable>: Sendable {
    let instants = Mutex<[String: Instant]>([:])
}

extension FrontEndFactory {
    /// The battery health meter of `battery.*`; made again when `battery.*` or `energy.max_gap`
    /// changes.
    static var batteryHealth: FrontEndFactory {
        var factory = FrontEndFactory(BatteryHealthSettings.self) { context throws(FrontEndError) in
            try BatteryHealthMonitor.make(context)
        }
        factory.changed = { running, next in
            running[section: BatteryHealthSettings.self] != next[section: BatteryHealthSettings.self]
                || running.energy.maxGap != next.energy.maxGap
        }
        return factory
    }
}
