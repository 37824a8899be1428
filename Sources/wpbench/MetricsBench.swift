import WPRuntime
import WPCMallocCounter
import Dispatch
import WPMetrics
import WPTestSupport

/// Benchmark scenarios for the Metrics area (figures in docs/performance.md).
///
/// Time is wall-clock from `ContinuousClock`; each scenario runs several rounds and prints the
/// best (the machine is shared). Allocations are counted by interposing malloc and friends
/// (target WPCMallocCounter) and reported per series / per operation.
enum MetricsBench {
    static let scenarios: [Scenario] = [
        Scenario(name: "metrics.render.text", summary: "render 30,000 gauge series (1,000 devices x 30, 3 labels), text 0.0.4") {
            try render(format: .text)
        },
        Scenario(name: "metrics.render.openmetrics", summary: "render 30,000 gauge series, OpenMetrics 1.0.0") {
            try render(format: .openMetrics)
        },
        Scenario(name: "metrics.render.fullprecision", summary: "render 30,000 series whose values all need 16-17 digits, text 0.0.4") {
            try render(format: .text, fullPrecision: true)
        },
        Scenario(name: "metrics.format", summary: "NumberFormatting per value: integers, short decimals, full precision") {
            formatValues()
        },
        Scenario(name: "metrics.snapshot.build", summary: "build the 30,000-series [MetricFamily] snapshot") {
            try buildSnapshot()
        },
        Scenario(name: "metrics.gauge.labelled", summary: "GaugeVec.labels(id, name, type).set over 1,000 devices, also through checkedLabels") {
            try labelledGauge()
        },
        Scenario(name: "metrics.histogram.contended", summary: "WPHistogram.observe from 2 threads") {
            let histogram = try WPHistogram(name: "bench_seconds", help: "h")
            contended("histogram observe") { histogram.observe(Double($0 % 1000) / 100) }
        },
        Scenario(name: "metrics.summary.contended", summary: "Summary.observe (3 objectives) from 2 threads") {
            let summary = try Summary(name: "bench_seconds", help: "h")
            contended("summary observe") { summary.observe(Double($0 % 1000) / 100) }
        },
    ]

    static let devices = 1_000
    static let gaugesPerDevice = 30

    /// 30 families of 1,000 samples labelled device_id/device_name/device_type, sorted.
    ///
    /// Values mimic a WinPower cycle: 0/1 status gauges, readings parsed from decimal text
    /// ("230.4", "49.98") and two computed energy values with full 17-digit precision per device.
    /// `fullPrecision` makes every value a computed one (the formatter's slowest exact path).
    static func snapshot(fullPrecision: Bool = false) throws -> [MetricFamily] {
        // One label array per device, shared (copy-on-write) by its 30 samples.
        let labels = (0..<devices).map { [String(1000 + $0), "UPS Rack \($0 / 10) Slot \($0 % 10)", "ups"] }
        var families: [MetricFamily] = []
        for gauge in 0..<gaugesPerDevice {
            var family = try MetricFamily(
                name: "winpower_device_reading_\(gauge)", help: "Reading number \(gauge) of a UPS.", type: .gauge,
                labelNames: ["device_id", "device_name", "device_type"], capacity: devices)
            for device in 0..<devices {
                let computed = (Double(device) + 1) * 1234.5678 / 7 + Double(gauge) / 3
                let value: Double
                if fullPrecision || gauge >= 28 {
                    value = computed
                } else if gauge % 3 == 0 {
                    value = Double(device % 2)
                } else {
                    value = Double("\(200 + device % 50).\(gauge % 10)\(device % 7)") ?? 0
                }
                try family.append(labelValues: labels[device], value: value)
            }
            family.sortSamples()
            families.append(family)
        }
        return families
    }

    static func render(format: ExpositionFormat, fullPrecision: Bool = false) throws {
        let families = try snapshot(fullPrecision: fullPrecision)
        let series = Double(devices * gaugesPerDevice)
        let encoder = ExpositionEncoder(format: format)
        var buffer: [UInt8] = []
        for _ in 0..<3 {  // warm up: the buffer reaches its final capacity
            buffer.removeAll(keepingCapacity: true)
            encoder.encode(families, into: &buffer)
        }
        var best = Duration.seconds(1000)
        var allocations: UInt = 0
        let rounds = 20
        for _ in 0..<rounds {
            let before = cmalloccounter_allocations()
            let elapsed = ContinuousClock().measure {
                buffer.removeAll(keepingCapacity: true)
                encoder.encode(families, into: &buffer)
            }
            allocations = max(allocations, cmalloccounter_allocations() - before)
            best = min(best, elapsed)
        }
        print("   \(format.rawValue): \(fixed(nanoseconds(best) / series)) ns/series (best of \(rounds)), "
              + "\(buffer.count) bytes, \(allocations) allocations per render (\(fixed(Double(allocations) / series, 4)) per series)")
    }

    static func formatValues() {
        let count = 100_000
        let integers: [Double] = (0..<count).map { (index: Int) -> Double in Double(index % 5000) }
        let shortDecimals: [Double] = (0..<count).map { (index: Int) -> Double in
            Double(index % 5000) + Double(index % 10) / 10
        }
        let fullPrecision: [Double] = (0..<count).map { (index: Int) -> Double in (Double(index) + 1) * 1234.5678 / 7 }
        let kinds: [(String, [Double])] = [("integer", integers), ("short decimal", shortDecimals),
                                           ("full precision", fullPrecision)]
        var buffer: [UInt8] = []
        buffer.reserveCapacity(count * 32)
        for (name, values) in kinds {
            var best = Duration.seconds(1000)
            for _ in 0..<5 {
                buffer.removeAll(keepingCapacity: true)
                best = min(best, ContinuousClock().measure {
                    for value in values { NumberFormatting.append(value, to: &buffer) }
                })
            }
            print("   \(name): \(fixed(nanoseconds(best) / Double(count))) ns/value")
        }
    }

    static func buildSnapshot() throws {
        var best = Duration.seconds(1000)
        var allocations: UInt = 0
        for _ in 0..<5 {
            let before = cmalloccounter_allocations()
            var families: [MetricFamily] = []
            best = min(best, try ContinuousClock().measure { families = try snapshot() })
            allocations = cmalloccounter_allocations() - before
            precondition(families.count == gaugesPerDevice)
        }
        let series = Double(devices * gaugesPerDevice)
        print("   build: \(fixed(nanoseconds(best) / series)) ns/series (best of 5), "
              + "\(fixed(Double(allocations) / series, 2)) allocations per series (label arrays built once per device and shared)")
    }

    static func labelledGauge() throws {
        let vec = try GaugeVec(name: "bench_load", help: "h", labelNames: ["device_id", "device_name", "device_type"])
        let labels = (0..<devices).map { [String(1000 + $0), "UPS Rack \($0 / 10) Slot \($0 % 10)", "ups"] }
        for values in labels { try vec.labels(values).set(1) }
        let operations = 200_000
        var best = Duration.seconds(1000)
        var allocations: UInt = 0
        for _ in 0..<5 {
            let before = cmalloccounter_allocations()
            best = min(best, try ContinuousClock().measure {
                for index in 0..<operations { try vec.labels(labels[index % devices]).set(Double(index)) }
            })
            allocations = cmalloccounter_allocations() - before
        }
        let child = try vec.labels(labels[0])
        let direct = ContinuousClock().measure { for index in 0..<operations { child.set(Double(index)) } }
        print("   labels(...).set: \(fixed(nanoseconds(best) / Double(operations))) ns/update, "
              + "\(fixed(Double(allocations) / Double(operations), 3)) allocations/update; "
              + "cached child .set: \(fixed(nanoseconds(direct) / Double(operations))) ns/update")

        // The non-throwing path: label names checked once, three values per update (an array
        // built per call, as the variadic labels(a, b, c) builds one).
        let checked = try vec.checkedLabels("device_id", "device_name", "device_type")
        var checkedBest = Duration.seconds(1000)
        var checkedAllocations: UInt = 0
        for _ in 0..<5 {
            let before = cmalloccounter_allocations()
            checkedBest = min(checkedBest, ContinuousClock().measure {
                for index in 0..<operations {
                    let values = labels[index % devices]
                    checked.labels(values[0], values[1], values[2]).set(Double(index))
                }
            })
            checkedAllocations = cmalloccounter_allocations() - before
        }
        print("   checkedLabels(...).labels(a, b, c).set: \(fixed(nanoseconds(checkedBest) / Double(operations))) ns/update, "
              + "\(fixed(Double(checkedAllocations) / Double(operations), 3)) allocations/update")
    }

    static func contended(_ what: String, _ body: @escaping @Sendable (Int) -> Void) {
        let perThread = 500_000
        var best = Duration.seconds(1000)
        var allocations: UInt = 0
        for _ in 0..<3 {
            let before = cmalloccounter_allocations()
            best = min(best, ContinuousClock().measure {
                DispatchQueue.concurrentPerform(iterations: 2) { _ in
                    for index in 0..<perThread { body(index) }
                }
            })
            allocations = cmalloccounter_allocations() - before
        }
        let total = Double(2 * perThread)
        print("   \(what): \(fixed(nanoseconds(best) / total)) ns/observation (wall time / observations, 2 threads), "
              + "\(fixed(Double(allocations) / total, 4)) allocations/observation")
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        duration.inSeconds * 1e9
    }

    static func fixed(_ value: Double, _ digits: Int = 1) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return "\(rounded)"
    }
}
