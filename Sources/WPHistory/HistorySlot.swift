/// What the history keeps of a UPS's readings: each as min, mean and max over a slot.
package enum HistoryMetric: Int, CaseIterable, Sendable {
    case loadWatts, loadPercent, batteryCharge, batteryRuntime, inputVoltage, outputVoltage, inputFrequency, temperature

    /// Its column's name in the database.
    package var column: String {
        switch self {
        case .loadWatts: "load_w"
        case .loadPercent: "load_pct"
        case .batteryCharge: "charge"
        case .batteryRuntime: "runtime_s"
        case .inputVoltage: "in_v"
        case .outputVoltage: "out_v"
        case .inputFrequency: "in_hz"
        case .temperature: "temp_c"
        }
    }

    /// Stored as whole multiples of 1/scale of its unit (watts and seconds whole, percents,
    /// volts and degrees to 0.1, hertz to 0.01): SQLite keeps small integers in 1 to 4 bytes
    /// where a real takes 8.
    package var scale: Double {
        switch self {
        case .loadWatts, .batteryRuntime: 1
        case .loadPercent, .batteryCharge, .inputVoltage, .outputVoltage, .temperature: 10
        case .inputFrequency: 100
        }
    }

    /// `value` as stored; `nil` for a value that is not finite or beyond what can be stored.
    func stored(_ value: Double) -> Int64? {
        let scaled = (value * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 1e15 else { return nil }
        return Int64(scaled)
    }
}

/// One reading of a UPS for the history: the instant (Unix seconds), the values it had (a
/// missing one is left out), its operating mode's code and its energy total.
package struct HistorySample: Sendable, Equatable {
    package var time: Int64
    package var values: [HistoryMetric: Double]
    package var mode: Int?
    package var energyKWh: Double?

    package init(time: Int64, values: [HistoryMetric: Double], mode: Int? = nil, energyKWh: Double? = nil) {
        self.time = time
        self.values = values
        self.mode = mode
        self.energyKWh = energyKWh
    }
}

/// A metric over a slot, in stored units (``HistoryMetric/scale``): the least, the greatest,
/// the sum and the number of samples it is over, so slots merge into coarser ones (a stored
/// slot's is its mean times its samples).
package struct HistoryAggregate: Sendable, Equatable {
    package var min: Int64
    package var max: Int64
    package var sum: Int64
    package var count: Int64

    package init(min: Int64, max: Int64, sum: Int64, count: Int64) {
        self.min = min
        self.max = max
        self.sum = sum
        self.count = count
    }

    init(_ value: Int64) { self.init(min: value, max: value, sum: value, count: 1) }

    /// The mean in stored units, rounded.
    var storedMean: Int64 { count > 0 ? Int64((Double(sum) / Double(count)).rounded()) : 0 }

    mutating func add(_ other: HistoryAggregate) {
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
        sum &+= other.sum
        count += other.count
    }
}

/// Which UPS: its server's name (empty for a `winpower`-only configuration) and its `device_id`.
package struct HistoryUPS: Sendable, Hashable {
    package var server: String
    package var device: String

    package init(server: String, device: String) {
        self.server = server
        self.device = device
    }
}

/// A UPS's readings over one slot of a tier: each metric's aggregate, and the mode and energy
/// total of the slot's last sample.
package struct HistorySlot: Sendable, Equatable {
    package var ups: HistoryUPS
    /// The slot's start, Unix seconds, a multiple of its length.
    package var start: Int64
    package var samples: Int64
    package var aggregates: [HistoryMetric: HistoryAggregate]
    package var mode: Int?
    package var energyKWh: Double?

    package init(ups: HistoryUPS, start: Int64, samples: Int64 = 0, aggregates: [HistoryMetric: HistoryAggregate] = [:],
                 mode: Int? = nil, energyKWh: Double? = nil) {
        self.ups = ups
        self.start = start
        self.samples = samples
        self.aggregates = aggregates
        self.mode = mode
        self.energyKWh = energyKWh
    }

    package mutating func add(_ sample: HistorySample) {
        samples += 1
        for (metric, value) in sample.values {
            guard let stored = metric.stored(value) else { continue }
            aggregates[metric, default: HistoryAggregate(min: stored, max: stored, sum: 0, count: 0)].add(HistoryAggregate(stored))
        }
        if let mode = sample.mode { self.mode = mode }
        if let energy = sample.energyKWh { energyKWh = energy }
    }

    /// Adds a later slot's (or a later part's) samples: aggregates added, its mode and energy
    /// total where it has them.
    mutating func merge(_ later: HistorySlot) {
        samples += later.samples
        for (metric, aggregate) in later.aggregates {
            if aggregates[metric] == nil { aggregates[metric] = aggregate } else { aggregates[metric]?.add(aggregate) }
        }
        if let mode = later.mode { self.mode = mode }
        if let energy = later.energyKWh { energyKWh = energy }
    }

    /// The mean of `metric` over the slot, in its unit; `nil` when no sample had it.
    package func mean(_ metric: HistoryMetric) -> Double? {
        aggregates[metric].map { Double($0.sum) / Double($0.count) / metric.scale }
    }

    /// The least and greatest of `metric` over the slot, in its unit.
    package func range(_ metric: HistoryMetric) -> ClosedRange<Double>? {
        guard let aggregate = aggregates[metric], aggregate.min <= aggregate.max else { return nil }
        return Double(aggregate.min) / metric.scale...Double(aggregate.max) / metric.scale
    }
}

/// The history's tiers: 5-minute slots, and the hourly and daily ones they are merged into
/// (UTC hours and days), so a day, a week, a month and a year are each a few hundred points.
package enum HistoryTier: Int, CaseIterable, Sendable {
    case fiveMinutes = 0, hour = 1, day = 2

    /// A slot's length in seconds.
    package var seconds: Int64 {
        switch self {
        case .fiveMinutes: 300
        case .hour: 3_600
        case .day: 86_400
        }
    }

    /// The start of the slot `time` (Unix seconds) falls in.
    package func slot(of time: Int64) -> Int64 {
        let remainder = time % seconds
        return time - (remainder < 0 ? remainder + seconds : remainder)
    }
}

/// Gathers each UPS's samples into 5-minute slots: a slot is handed over once a sample of a
/// later slot arrives for its UPS, or once ``closed(before:)`` finds it over (its UPS stopped
/// reporting). CPU work only; the writer stores what it hands over.
package struct HistoryAccumulator: Sendable {
    private var open: [HistoryUPS: HistorySlot] = [:]

    package init() {}

    /// Adds `sample` of `ups`; returns the UPS's previous slot when the sample starts a later
    /// one. A sample older than the open slot is dropped (a clock stepped back).
    package mutating func add(_ sample: HistorySample, of ups: HistoryUPS) -> HistorySlot? {
        let start = HistoryTier.fiveMinutes.slot(of: sample.time)
        var finished: HistorySlot?
        if let current = open[ups] {
            if start < current.start { return nil }
            if start > current.start {
                finished = current
                open[ups] = HistorySlot(ups: ups, start: start)
            }
        } else {
            open[ups] = HistorySlot(ups: ups, start: start)
        }
        open[ups]?.add(sample)
        return finished
    }

    /// Hands over the open slots that ended at or before `time` (Unix seconds): UPSs that sent
    /// nothing since, or every slot at shutdown (`time` far ahead).
    package mutating func closed(before time: Int64) -> [HistorySlot] {
        let ended = open.values.filter { $0.start + HistoryTier.fiveMinutes.seconds <= time }
        for slot in ended { open[slot.ups] = nil }
        return ended.sorted { ($0.ups.server, $0.ups.device, $0.start) < ($1.ups.server, $1.ups.device, $1.start) }
    }

    /// Every slot still open (sorted), which stay open.
    package var openSlots: [HistorySlot] {
        open.values.sorted { ($0.ups.server, $0.ups.device) < ($1.ups.server, $1.ups.device) }
    }
}
