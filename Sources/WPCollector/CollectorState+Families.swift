import FoundationEssentials
import WPClient
import WPEnergy
import WPMetrics
import WPStorage

extension CollectorState {
    /// Builds every family of the snapshot, sorted by exposed name, series sorted by device id.
    ///
    /// - Throws: ``MetricsError`` only if a family definition were invalid (a programming
    ///   error caught by the golden tests), never because of device data.
    func families(_ context: RenderContext) throws(MetricsError) -> [MetricFamily] {
        var families: [MetricFamily] = []
        families.reserveCapacity(DeviceGauge.all.count + 24)
        try appendExporterFamilies(context, to: &families)
        try appendEnergyFamilies(context, to: &families)
        try appendDeviceFamilies(context, to: &families)
        families.sort { $0.exposedName < $1.exposedName }
        return families
    }

    private func appendExporterFamilies(_ context: RenderContext, to families: inout [MetricFamily]) throws(MetricsError) {
        try families.append(.single("winpower_exporter_up",
            "1 when the last successful collection finished within the staleness window, 0 otherwise.",
            context.fresh ? 1 : 0))
        try families.append(.single("winpower_exporter_device_count",
            "Devices with live series: seen in a successful readout within the staleness window.",
            Double(context.live.count)))
        try families.append(.single("winpower_exporter_last_collection_success",
            "1 when the most recent collection succeeded, 0 when it failed or none ran yet.",
            lastCollectionSucceeded == true ? 1 : 0))
        if let finished = health.lastFinished {
            try families.append(.single("winpower_exporter_last_collection_timestamp_seconds",
                "Unix time the most recent collection finished, successful or not.",
                finished.timeIntervalSince1970, unit: "seconds"))
        }
        try families.append(.single("winpower_exporter_collections_skipped_total",
            "Scheduled collections skipped: the previous one was still running, "
                + "or the exporter could not run them on time (a suspended machine).",
            Double(skippedCollections), type: .counter))
        try appendBoundFamilies(to: &families)
        try families.append(contentsOf: MetricFamily.meterFamilies(stateReset: context.energyStateReset,
                                                                   persistFailures: context.persistFailures,
                                                                   lastSaveFailed: context.lastSaveFailed))

        var errorFamily = try MetricFamily(name: "winpower_exporter_scrape_errors_total",
            help: "Failed collections by error type.", type: .counter, labelNames: ["error_type"])
        for (kind, count) in errors.sorted(by: { $0.key < $1.key }) {
            try errorFamily.append(labelValues: [kind], value: Double(count))
        }
        families.append(errorFamily)

        var durationFamily = try MetricFamily(name: "winpower_exporter_collection_duration_seconds",
            help: "Time one collection took: fetch, energy integration and persistence.", type: .histogram,
            unit: "seconds")
        try durationFamily.append(Sample(labelValues: [], value: .histogram(collectionDuration.value)))
        families.append(durationFamily)

        try families.append(.single("winpower_connection_status",
            "1 when the last collection got an HTTP response from WinPower, 0 otherwise.",
            health.winPowerReachable ? 1 : 0))
        try families.append(.single("winpower_auth_status",
            "1 when the exporter holds a token WinPower accepted that has not expired, 0 otherwise.",
            health.authenticated ? 1 : 0))
        // Present from the first scrape: 0 while no token is held (before the first login, after
        // a rejected one) and once the token expired.
        try families.append(.single("winpower_token_expiry_seconds",
            "Seconds until the WinPower token expires, as the client reports it "
                + "(0 while no token is held and once expired).",
            max(0, tokenExpiry.map { $0.timeIntervalSince(context.now) } ?? 0), unit: "seconds"))
        var apiFamily = try MetricFamily(name: "winpower_api_response_time_seconds",
            help: "WinPower API request latency by endpoint.", type: .histogram, unit: "seconds",
            labelNames: ["endpoint"])
        for (endpoint, histogram) in apiResponseTime.sorted(by: { $0.key < $1.key }) {
            try apiFamily.append(Sample(labelValues: [endpoint], value: .histogram(histogram.value)))
        }
        families.append(apiFamily)
    }

    private func appendEnergyFamilies(_ context: RenderContext, to families: inout [MetricFamily]) throws(MetricsError) {
        let ids = energyLabels.keys.sorted()
        var watthours = try MetricFamily(name: "winpower_device_cumulative_energy",
            help: "Energy delivered since counting began, in watt-hours.", type: .gauge,
            labelNames: deviceLabelNames, capacity: ids.count)
        var joules = try MetricFamily(name: "winpower_device_energy_joules_total",
            help: "Energy delivered since counting began, in joules.", type: .counter, unit: "joules",
            labelNames: deviceLabelNames, capacity: ids.count)
        var gaps = try MetricFamily(name: "winpower_device_energy_gaps_total",
            help: "Intervals longer than energy.max_gap that were not integrated.", type: .counter,
            labelNames: deviceLabelNames, capacity: ids.count)
        var updated = try MetricFamily(name: "winpower_device_last_update_timestamp_seconds",
            help: "Unix time of the device's last successful reading.", type: .gauge, unit: "seconds",
            labelNames: deviceLabelNames, capacity: ids.count)
        for id in ids {
            guard let labels = energyLabels[id] else { continue }
            let energy = context.totals[id] ?? DeviceEnergy()
            let safeJoules = energy.joules.isFinite && energy.joules >= 0 ? energy.joules : 0
            try watthours.append(labelValues: labels, value: safeJoules / 3600)
            try joules.append(labelValues: labels, value: safeJoules)
            try gaps.append(labelValues: labels, value: Double(max(0, energy.gaps)))
            if let stamp = lastUpdate[id] {
                try updated.append(labelValues: labels, value: stamp.timeIntervalSince1970)
            }
        }
        families.append(contentsOf: [watthours, joules, gaps, try rejectedSamplesFamily(context, ids: ids), updated])
        try appendLedgerFamilies(context, ids: ids, to: &families)
    }

    private func appendDeviceFamilies(_ context: RenderContext, to families: inout [MetricFamily]) throws(MetricsError) {
        let count = context.live.count
        var info = try MetricFamily(name: "winpower_device",
            help: "Inventory of each UPS; always 1.", type: .info,
            labelNames: deviceLabelNames + ["model", "firmware_version"], capacity: count)
        var faults = try MetricFamily(name: "winpower_device_fault_info",
            help: "1 with the fault code in a label while the UPS reports a fault.", type: .gauge,
            labelNames: deviceLabelNames + ["fault_code"])
        for entry in context.live {
            try info.append(labelValues: entry.infoLabels, value: 1)
            if let labels = entry.faultLabels {
                try faults.append(labelValues: labels, value: 1)
            }
        }
        families.append(info)
        families.append(faults)
        try appendModeAndAlarmFamilies(context, to: &families)
        for (index, gauge) in DeviceGauge.all.enumerated() {
            var family = try MetricFamily(name: gauge.name, help: gauge.help, type: .gauge, unit: gauge.unit,
                                          labelNames: deviceLabelNames, capacity: count)
            for entry in context.live {
                if gauge.afterSelfTest, (context.totals[entry.id]?.ledger.tests ?? 0) == 0 { continue }
                if let value = entry.values[index] {
                    try family.append(Sample(labelValues: entry.labels, value: .gauge(value)))
                }
            }
            families.append(family)
        }
        try appendPhaseAndReadingFamilies(context, to: &families)
    }

    /// The per-phase families, the phase counts, the passed-through readings and their drop
    /// counter; each only when it has a series, so a single-phase fleet without unknown
    /// readings renders exactly what it did before they existed.
    private func appendPhaseAndReadingFamilies(_ context: RenderContext,
                                               to families: inout [MetricFamily]) throws(MetricsError) {
        // Only devices with extras are visited (none in a single-phase fleet without unknown readings).
        let carrying = context.extras.map { (labels: $0.labels, extras: $0.extras) }
        let phaseLabels = deviceLabelNames + ["phase"]
        for (index, gauge) in DevicePhaseGauge.all.enumerated() {
            var family = try MetricFamily(name: gauge.name, help: gauge.help, type: .gauge, unit: gauge.unit, labelNames: phaseLabels)
            for (labels, extras) in carrying where !extras.phaseValues.isEmpty {
                for (phase, value) in extras.phaseValues[index] {
                    try family.append(labelValues: labels + [DevicePhaseGauge.phaseLabels[phase - 1]], value: value)
                }
            }
            if !family.samples.isEmpty { families.append(family) }
        }
        var inputPhases = try MetricFamily(name: "winpower_device_input_phases",
            help: "Input phases of the UPS (config inputPhaseNumber); multi-phase UPSs only.", type: .gauge,
            labelNames: deviceLabelNames)
        var outputPhases = try MetricFamily(name: "winpower_device_output_phases",
            help: "Output phases of the UPS (config outputPhaseNumber); multi-phase UPSs only.", type: .gauge,
            labelNames: deviceLabelNames)
        var readings = try MetricFamily(name: "winpower_device_reading",
            help: "A numeric reading WinPower sent that has no metric of its own, as sent: its object in section, "
                + "its name in key.",
            type: .gauge, labelNames: deviceLabelNames + ["section", "key"])
        for (labels, extras) in carrying {
            if let count = extras.phaseCounts.input { try inputPhases.append(labelValues: labels, value: count) }
            if let count = extras.phaseCounts.output { try outputPhases.append(labelValues: labels, value: count) }
            for reading in extras.readings {
                try readings.append(labelValues: labels + [reading.section.rawValue, reading.key], value: reading.value)
            }
        }
        var installed = try MetricFamily(name: "winpower_device_battery_installed_timestamp_seconds",
            help: "Unix time of the day the battery was installed, as configured (overrides.<id>.battery.installed); "
                + "only for UPSs with one.",
            type: .gauge, unit: "seconds", labelNames: deviceLabelNames)
        var age = try MetricFamily(name: "winpower_device_battery_age_seconds",
            help: "Age of the battery at the collection, from its configured installation day.",
            type: .gauge, unit: "seconds", labelNames: deviceLabelNames)
        var replaceBy = try MetricFamily(name: "winpower_device_battery_replace_by_timestamp_seconds",
            help: "Unix time of the day the battery is due for replacement: its installation day plus its configured life (4 years by default).",
            type: .gauge, unit: "seconds", labelNames: deviceLabelNames)
        let now = context.now.timeIntervalSince1970
        for (labels, extras) in carrying {
            guard let battery = extras.battery else { continue }
            try installed.append(labelValues: labels, value: battery.installed)
            try age.append(labelValues: labels, value: max(0, now - battery.installed).rounded())
            try replaceBy.append(labelValues: labels, value: battery.replaceBy)
        }
        for family in [inputPhases, outputPhases, readings, installed, age, replaceBy] where !family.samples.isEmpty {
            families.append(family)
        }
        if !readingsDropped.isEmpty {
            var dropped = try MetricFamily(name: "winpower_exporter_readings_dropped_total",
                help: "Readings without a metric of their own left out of winpower_device_reading: over the per-device "
                    + "cap or with a name over 64 bytes (reason device), over the per-server cap (reason server).",
                type: .counter, labelNames: ["reason"])
            for reason in ReadingsPolicy.DropReason.allCases {
                try dropped.append(labelValues: [reason.rawValue], value: Double(readingsDropped[reason] ?? 0))
            }
            families.append(dropped)
        }
        if !readingsRefused.isEmpty {
            var refused = try MetricFamily(name: "winpower_exporter_readings_refused_total",
                help: "Battery readings refused as physically implausible and treated as missing (charge outside 0-100 %, "
                    + "runtime outside 0-604800 s, voltage outside 0-2000 V, or not finite): they never set LB or batteryLow.",
                type: .counter, labelNames: ["reading"])
            for reading in BatteryBounds.Reading.allCases {
                try refused.append(labelValues: [reading.rawValue], value: Double(readingsRefused[reading] ?? 0))
            }
            families.append(refused)
        }
    }
}

extension CollectorState {
    /// `winpower_device_operating_mode` (a StateSet in shape: one 0/1 series per known mode,
    /// typed gauge because OpenMetrics would name a stateset's label after the family), the
    /// bounded per-code alarm series, and the count of alarm codes left out.
    private func appendModeAndAlarmFamilies(_ context: RenderContext,
                                            to families: inout [MetricFamily]) throws(MetricsError) {
        let count = context.live.count
        var modes = try MetricFamily(name: "winpower_device_operating_mode",
            help: "1 for the UPS's current operating mode, 0 for the other known modes "
                + "(power_on, standby, bypass, line, battery, battery_test, fault); "
                + "no series while the mode code is missing or unknown.",
            type: .gauge, labelNames: deviceLabelNames + ["mode"], capacity: count * OperatingMode.allCases.count)
        var alarms = try MetricFamily(name: "winpower_device_active_alarm",
            help: "1 for each distinct active alarm code (at most \(AlarmSeries.limit) per device).",
            type: .gauge, labelNames: deviceLabelNames + ["alarm_code"])
        var dropped = try MetricFamily(name: "winpower_device_alarm_codes_dropped",
            help: "Distinct active alarm codes not exported as series: over the \(AlarmSeries.limit) per device, "
                + "or empty or longer than \(AlarmSeries.longestCode) characters.",
            type: .gauge, labelNames: deviceLabelNames, capacity: count)
        for entry in context.live {
            if let mode = entry.mode {
                for state in OperatingMode.allCases {
                    try modes.append(labelValues: entry.labels + [state.label], value: state == mode ? 1 : 0)
                }
            }
            for code in entry.alarmCodes {
                try alarms.append(labelValues: entry.labels + [code], value: 1)
            }
            if let count = entry.alarmCodesDropped {
                try dropped.append(labelValues: entry.labels, value: Double(count))
            }
        }
        families.append(contentsOf: [modes, alarms, dropped])
    }
}

extension MetricFamily {
    /// The family name as the text format shows it (info families gain `_info`).
    var exposedName: String { type == .info ? name + "_info" : name }

    /// A family holding one unlabelled sample.
    static func single(_ name: String, _ help: String, _ value: Double, type: MetricType = .gauge,
                       unit: String? = nil) throws(MetricsError) -> MetricFamily {
        var family = try MetricFamily(name: name, help: help, type: type, unit: unit)
        try family.append(labelValues: [], value: value)
        return family
    }

    /// The energy meter's health (``WinPowerCollector/processWideFamilies``).
    static func meterFamilies(stateReset: Bool, persistFailures: Int, lastSaveFailed: Bool) throws(MetricsError) -> [MetricFamily] {
        [try .single("winpower_exporter_energy_last_save_successful",
            "1 when the last attempt to save the energy totals succeeded (or none was made yet), 0 while saving "
                + "fails: the data directory is missing and cannot be recreated, read-only, full, or locked by another process.",
            lastSaveFailed ? 0 : 1),
         try .single("winpower_exporter_energy_state_reset",
            "1 when stored energy totals could not be read at start and counting restarted from 0.",
            stateReset ? 1 : 0),
         try .single("winpower_exporter_energy_persist_failures_total",
            "Failed attempts to save the energy totals.", Double(persistFailures), type: .counter)]
    }

    /// Lines this family contributes to the text format (histogram buckets, sum and count included).
    var lineCount: Int {
        samples.reduce(0) { total, sample in
            switch sample.value {
            case .histogram(let histogram): return total + histogram.upperBounds.count + 2
            case .summary(let summary): return total + summary.quantiles.count + 2
            default: return total + 1
            }
        }
    }
}

extension CollectorState {
    /// The `reason` values of `winpower_exporter_devices_dropped_total`, each exported from the start.
    static var deviceDropReasons: [String] { DeviceListBound.allCases.map(\.rawValue) + [invalidDevice] }

    /// What the client's bounds left out since start: devices by reason and cut texts.
    private func appendBoundFamilies(to families: inout [MetricFamily]) throws(MetricsError) {
        var dropped = try MetricFamily(name: "winpower_exporter_devices_dropped_total",
            help: "Devices left out of collections: listed past winpower.max_devices (reason max_devices), "
                + "reported but past winpower.max_pages (reason max_pages), or without a usable id (reason invalid).",
            type: .counter, labelNames: ["reason"])
        for reason in Self.deviceDropReasons {
            try dropped.append(labelValues: [reason], value: Double(health.devicesDropped[reason] ?? 0))
        }
        families.append(dropped)
        try families.append(.single("winpower_exporter_device_texts_truncated_total",
            "Device text fields (alias, model, alarm texts, ...) cut to winpower.max_text_bytes.",
            Double(health.textsTruncated), type: .counter))
    }
}
