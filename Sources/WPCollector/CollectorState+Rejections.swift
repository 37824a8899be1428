import WPMetrics

extension CollectorState {
    /// The reason label of readings above the device's plausibility bound.
    static var implausibleReason: String { "implausible" }

    /// `winpower_device_energy_samples_rejected_total{reason}`: one series per device with
    /// energy series (0 until a reading is refused), so `rate()` sees the first rejection.
    func rejectedSamplesFamily(_ context: RenderContext, ids: [String]) throws(MetricsError) -> MetricFamily {
        var family = try MetricFamily(name: "winpower_device_energy_samples_rejected_total",
            help: "Power readings not integrated because they exceed the plausibility bound (energy.max_power_watts, else 2 × ratingVa).",
            type: .counter, labelNames: deviceLabelNames + ["reason"], capacity: ids.count)
        for id in ids {
            guard let labels = energyLabels[id] else { continue }
            try family.append(labelValues: labels + [Self.implausibleReason],
                              value: Double(context.rejectedSamples[id] ?? 0))
        }
        return family
    }
}
