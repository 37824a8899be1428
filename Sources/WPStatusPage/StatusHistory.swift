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

    /// The points of the 24 hours up to `now`, oldest first (slots not written left out).
    package func points(until now: Date) -> [Point] {
        let last = Int(max(0, now.timeIntervalSince1970)) / Self.slotSeconds
        let first = last - Self.capacity + 1
        return points.filter { Int($0.slot) >= first && Int($0.slot) <= last }.sorted { $0.slot < $1.slot }
    }
}
