extension UPSMIBValues {
    /// Adds the UPS-MIB instances of these values to `builder`: the `upsIdent`, `upsBattery`,
    /// `upsInput`, `upsOutput`, `upsBypass` (when there is a bypass reading), `upsAlarm`,
    /// `upsTest` and `upsConfig` objects that have a value. Line counts and `upsAlarmsPresent`
    /// are always served (0 when there are no rows). `upsTestSpinLock` and the `upsControl`
    /// group are write controls of a read-write agent and are not served.
    package func add(to builder: inout MIBBuilder) {
        func text(_ object: OID, _ value: String?, _ maxBytes: Int) {
            if let value { builder.scalar(object, .displayString(value, maxBytes: maxBytes)) }
        }
        func number(_ object: OID, _ value: Double?, scale: Double = 1, range: ClosedRange<Int64> = 0...Int64(Int32.max)) {
            if let integer = Self.scaled(value, scale, range) { builder.scalar(object, .integer(integer)) }
        }
        func column(_ object: OID, _ row: Int, _ value: Double?, scale: Double = 1) {
            if let integer = Self.scaled(value, scale, 0...Int64(Int32.max)) {
                builder.add(object, index: [UInt32(row)], .integer(integer))
            }
        }
        text(UPSMIB.Ident.manufacturer, manufacturer, 31)
        text(UPSMIB.Ident.model, model, 63)
        text(UPSMIB.Ident.upsSoftwareVersion, upsSoftwareVersion, 63)
        text(UPSMIB.Ident.agentSoftwareVersion, agentSoftwareVersion, 63)
        text(UPSMIB.Ident.name, name, 63)
        text(UPSMIB.Ident.attachedDevices, attachedDevices, 63)

        if let batteryStatus { builder.scalar(UPSMIB.Battery.status, .integer(batteryStatus.rawValue)) }
        number(UPSMIB.Battery.secondsOnBattery, secondsOnBattery)
        // PositiveInteger: a runtime under 30 s rounds to 0 minutes, which the type cannot hold.
        number(UPSMIB.Battery.estimatedMinutesRemaining, runtimeRemaining, scale: 1.0 / 60, range: 1...Int64(Int32.max))
        number(UPSMIB.Battery.estimatedChargeRemaining, estimatedChargeRemaining, range: 0...100)
        number(UPSMIB.Battery.voltage, batteryVoltage, scale: 10)
        number(UPSMIB.Battery.current, batteryCurrent, scale: 10, range: Int64(Int32.min)...Int64(Int32.max))
        number(UPSMIB.Battery.temperature, batteryTemperature, range: Int64(Int32.min)...Int64(Int32.max))

        if let inputLineBads { builder.scalar(UPSMIB.Input.lineBads, .counter32(inputLineBads)) }
        builder.scalar(UPSMIB.Input.numLines, .integer(Int32(clamping: inputLines.count)))
        for (offset, line) in inputLines.enumerated() {
            column(UPSMIB.Input.frequency, offset + 1, line.frequency, scale: 10)
            column(UPSMIB.Input.voltage, offset + 1, line.voltage)
            column(UPSMIB.Input.current, offset + 1, line.current, scale: 10)
            column(UPSMIB.Input.truePower, offset + 1, line.truePower)
        }

        if let outputSource { builder.scalar(UPSMIB.Output.source, .integer(outputSource.rawValue)) }
        number(UPSMIB.Output.frequency, outputFrequency, scale: 10)
        builder.scalar(UPSMIB.Output.numLines, .integer(Int32(clamping: outputLines.count)))
        for (offset, line) in outputLines.enumerated() {
            column(UPSMIB.Output.voltage, offset + 1, line.voltage)
            column(UPSMIB.Output.current, offset + 1, line.current, scale: 10)
            column(UPSMIB.Output.power, offset + 1, line.power)
            column(UPSMIB.Output.percentLoad, offset + 1, line.percentLoad)
        }

        if bypassFrequency != nil || !bypassLines.isEmpty {
            number(UPSMIB.Bypass.frequency, bypassFrequency, scale: 10)
            builder.scalar(UPSMIB.Bypass.numLines, .integer(Int32(clamping: bypassLines.count)))
            for (offset, line) in bypassLines.enumerated() {
                column(UPSMIB.Bypass.voltage, offset + 1, line.voltage)
                column(UPSMIB.Bypass.current, offset + 1, line.current, scale: 10)
                column(UPSMIB.Bypass.power, offset + 1, line.power)
            }
        }

        let rows = alarms.filter { $0.id >= 1 && $0.id <= UInt32(Int32.max) }
        builder.scalar(UPSMIB.Alarm.present, .gauge32(UInt32(clamping: rows.count)))
        for row in rows {
            builder.add(UPSMIB.Alarm.descr, index: [row.id], .objectIdentifier(row.alarm.oid))
            builder.add(UPSMIB.Alarm.time, index: [row.id], .timeTicks(row.time))
        }

        if let testID { builder.scalar(UPSMIB.Test.id, .objectIdentifier(testID.oid)) }
        if let testResult { builder.scalar(UPSMIB.Test.resultsSummary, .integer(testResult.rawValue)) }
        text(UPSMIB.Test.resultsDetail, testResultDetail, 255)
        if let testStartTime { builder.scalar(UPSMIB.Test.startTime, .timeTicks(testStartTime)) }
        if let testElapsedTime { builder.scalar(UPSMIB.Test.elapsedTime, .integer(Int32(clamping: testElapsedTime))) }

        number(UPSMIB.Config.inputVoltage, nominalInputVoltage)
        number(UPSMIB.Config.inputFreq, nominalInputFrequency, scale: 10)
        number(UPSMIB.Config.outputVoltage, nominalOutputVoltage)
        number(UPSMIB.Config.outputFreq, nominalOutputFrequency, scale: 10)
        number(UPSMIB.Config.outputVA, nominalOutputVA)
        number(UPSMIB.Config.outputPower, nominalOutputPower)
        number(UPSMIB.Config.lowBattTime, lowBatteryTime, scale: 1.0 / 60)
    }

    /// `value × scale` rounded to the nearest integer, when finite and within `range`.
    static func scaled(_ value: Double?, _ scale: Double, _ range: ClosedRange<Int64>) -> Int32? {
        guard let value else { return nil }
        let result = (value * scale).rounded()
        guard result.isFinite, result >= Double(range.lowerBound), result <= Double(range.upperBound) else { return nil }
        return Int32(exactly: result)
    }
}
