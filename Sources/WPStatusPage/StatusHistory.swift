package import FoundationEssentials

/// The last 24 hours of one UPS, for the charts of its status page: load (%), battery charge (%)
/// and input voltage (V), one point per 5-minute slot (the last reading in the slot), in a ring
/// of fixed size.
///
/// Bounded whatever the collection interval: 288 slots of 16 bytes, 4.6 KB per UPS, about
/// 4.6 MB for 1,000 UPSs (docs/status-page.md). Missing readings are NaN; a slot not written
/// in the last 24 hours is not shown (a gap in the chart).
package struct StatusHistory: Sendable {
    /// One 5-minute slot.
    package struct Point: Sendable, Equatable {
        /// The slot number: Unix time / ``StatusHistory/slotSeconds``; `-1` for a slot never written.
        package var slot: Int32
        package var load: Float32
        package var battery: Float32
        package var inputVoltage: Float32
    }

    /// Seconds per slot.
    package static let slotSeconds = 300
    /// Slots kept: 24 hours.
    package static let capacity = 24 * 3600 / slotSeconds

    private var points: [Point]

    package init() {
        points = Array(repeating: Point(slot: -1, load: .nan, battery: .nan, inputVoltage: .nan), count: Self.capacity)
    }

    /// Bytes one UPS's history holds (the figure of docs/status-page.md).
    package static var bytesPerUPS: Int { capacity * MemoryLayout<Point>.stride }

    /// Records a reading taken at `time` (a wall-clock time): the slot's last reading wins.
    package mutating func record(at time: Date, load: Double?, battery: Double?, inputVoltage: Double?) {
        let seconds = time.timeIntervalSince1970
        guard seconds.isFinite, seconds >= 0, seconds < Double(Int32.max) * Double(Self.slotSeconds) else { return }
        let slot = Int(seconds) / Self.slotSeconds
        func value(_ reading: Double?) -> Float32 {
            guard let reading, reading.isFinite else { return .nan }
            return Float32(reading)
        }
        points[slot % Self.capacity] = Point(slot: Int32(slot), load: value(load), battery: value(battery),
                                             inputVoltage: value(inputVoltage))
    }

    /// Half hours in a sparkline: 24 hours.
    package static let sparkPoints = 48

    /// The 24 hours up to `now` for a sparkline: per half hour (6 slots) the mean load and
    /// battery charge (%), whole; `nil` for a half hour with none.
    package func spark(until now: Date) -> (load: [Int?], battery: [Int?]) {
        let per = Self.capacity / Self.sparkPoints
        var sums = Array(repeating: (load: 0.0, loads: 0, battery: 0.0, batteries: 0), count: Self.sparkPoints)
        let last = Int(max(0, now.timeIntervalSince1970)) / Self.slotSeconds
        let first = (last / per - Self.sparkPoints + 1) * per
        for point in points where Int(point.slot) >= first && Int(point.slot) <= last {
            let bucket = (Int(point.slot) - first) / per
            if point.load.isFinite { sums[bucket].load += Double(point.load); sums[bucket].loads += 1 }
            if point.battery.isFinite { sums[bucket].battery += Double(point.battery); sums[bucket].batteries += 1 }
        }
        func mean(_ sum: Double, _ count: Int) -> Int? {
            count > 0 ? Int(min(max((sum / Double(count)).rounded(), -1_000), 1_000)) : nil
        }
        return (sums.map { mean($0.load, $0.loads) }, sums.map { mean($0.battery, $0.batteries) })
    }

    /// Takes a slot the history database kept (its number, its means) where the ring holds
    /// nothing newer for it: what a restart starts from.
    package mutating func seed(slot: Int, load: Double?, battery: Double?, inputVoltage: Double?) {
        guard slot >= 0, slot < Int(Int32.max), Int(points[slot % Self.capacity].slot) < slot else { return }
        func value(_ reading: Double?) -> Float32 { reading.flatMap { $0.isFinite ? Float32($0) : nil } ?? .nan }
        points[slot % Self.capacity] = Point(slot: Int32(slot), load: value(load), battery: value(battery),
                                             inputVoltage: value(inputVoltage))
    }

    /// Takes each slot of `other` this ring holds nothing newer for.
    package mutating func merge(_ other: StatusHistory) {
        for point in other.points where point.slot >= 0 && points[Int(point.slot) % Self.capacity].slot < point.slot {
            points[Int(point.slot) % Self.capacity] = point
        }
    }

    /// The points of the 24 hours up to `now`, oldest first (slots not written left out).
    package func points(until now: Date) -> [Point] {
        let last = Int(max(0, now.timeIntervalSince1970)) / Self.slotSeconds
        let first = last - Self.capacity + 1
        return points.filter { Int($0.slot) >= first && Int($0.slot) <= last }.sorted { $0.slot < $1.slot }
    }
}
