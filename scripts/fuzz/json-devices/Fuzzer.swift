// libFuzzer target for the JSON scanner and WinPower's device-list and login decoders. Built by
// scripts/fuzz.sh json-devices together with their sources (not part of the package build).
//
// Besides "never crash" (deep nesting, huge numbers, bad escapes and UTF-8 included), it checks
// that decoding is a function of the bytes (the same input decodes to the same page twice),
// that every decoded device has an id, and that what a device carries beyond its fields stays
// bounded: extra readings at most DeviceListDecoder.extraReadingLimit, each with a finite value
// and a name of 1 to longestExtraKey bytes; alarm details at most alarmDetailLimit; phases 1–3;
// with a text bound and keepAtMost, every text within the bound and no more entries decoded.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeviceList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let decoder = DeviceListDecoder()
    let first = try? decoder.decodeDeviceList(bytes)
    let second = try? decoder.decodeDeviceList(bytes)
    if first != second { fatalError("the same bytes decoded differently") }
    if let first, first.devices.contains(where: { $0.id.isEmpty }) { fatalError("a device without an id") }
    for device in first?.devices ?? [] {
        if device.extraReadings.count > DeviceListDecoder.extraReadingLimit { fatalError("too many extra readings") }
        for reading in device.extraReadings where !reading.value.isFinite || reading.key.utf8.isEmpty
            || reading.key.utf8.count > DeviceListDecoder.longestExtraKey {
            fatalError("an extra reading out of bounds")
        }
        if (device.activeAlarms?.alarms.count ?? 0) > DeviceListDecoder.alarmDetailLimit { fatalError("too many alarm details") }
        for quantity in PhaseReadings.Quantity.allCases where device.realtime.phases[quantity, 0] != nil
            || device.realtime.phases[quantity, 4] != nil {
            fatalError("a phase outside 1–3")
        }
    }
    // The bounds: a small text bound and entry budget, every text within it, the budget kept.
    let bounded = DeviceListDecoder(maxTextBytes: DeviceListDecoder.leastMaxTextBytes)
    if let page = try? bounded.decodeDeviceList(bytes, keepAtMost: 3) {
        if page.devices.count + page.dropped.count > 3 { fatalError("more entries decoded than keepAtMost") }
        if page.devices.count + page.dropped.count + page.skipped != page.entryCount { fatalError("entries lost") }
        for device in page.devices {
            let alarms = device.activeAlarms
            let texts = [device.asset.id, device.asset.alias, device.asset.model, device.asset.comPort, device.asset.areaId,
                         device.asset.firmwareVersion, device.asset.createTime, device.realtime.faultCode]
                + (alarms?.codes ?? []).map { Optional($0) } + (alarms?.alarms ?? []).flatMap { [$0.code, $0.name, $0.message, $0.id] }
            if texts.contains(where: { ($0?.utf8.count ?? 0) > bounded.maxTextBytes }) { fatalError("a text over the bound") }
            if (alarms?.codes.count ?? 0) > DeviceListDecoder.alarmCodeLimit { fatalError("too many alarm codes") }
        }
    }
    _ = try? decoder.decodeLogin(bytes)
    return 0
}
