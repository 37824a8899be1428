// libFuzzer target for the energy state file decoder. Built by scripts/fuzz.sh state-file
// together with the format's sources (not part of the package build).
//
// Each input is decoded twice: as it is (nearly always refused by the checksum), and with a
// correct checksum line appended, so the fuzzer explores the format behind the checksum.
// A decoded state must hold only totals that are finite and ≥ 0 and gap counts within range
// (its outage ledgers too: amounts finite and ≥ 0, counts in range, one count per bucket),
// must encode and decode back to the same state, and its counters must advance without trap.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStateFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    check(StateFileFormat.decode(bytes))
    var body = bytes
    if body.last != UInt8(ascii: "\n") { body.append(UInt8(ascii: "\n")) }
    let crc = String(CRC32.checksum(body), radix: 16)
    body += Array("crc32 \(String(repeating: "0", count: 8 - crc.count) + crc)\n".utf8)
    check(StateFileFormat.decode(body))
    return 0
}

private func check(_ result: Result<EnergyState, StateFileFormat.FormatFailure>) {
    guard case .success(let state) = result else { return }
    for (id, device) in state.devices {
        if !device.joules.isFinite || device.joules < 0 { fatalError("device \(id): total \(device.joules)") }
        if device.gaps < 0 || device.gaps > StoredDeviceEnergy.maxGaps { fatalError("device \(id): gaps \(device.gaps)") }
        _ = StoredDeviceEnergy.incremented(device.gaps)
        let ledger = device.ledger
        for amount in [ledger.onBatterySeconds, ledger.dischargeJoules, ledger.durationSum]
            where !amount.isFinite || amount < 0 {
            fatalError("device \(id): ledger amount \(amount)")
        }
        for count in [ledger.transfers, ledger.tests] + ledger.durationCounts
            where count < 0 || count > StoredDeviceEnergy.maxGaps {
            fatalError("device \(id): ledger count \(count)")
        }
        if ledger.durationCounts.count != StoredOutageLedger.durationBucketCount { fatalError("device \(id): buckets") }
        var copy = OutageLedger(ledger)
        copy.observe(duration: .greatestFiniteMagnitude)
        if !copy.durationSum.isFinite { fatalError("device \(id): observing made the sum infinite") }
        _ = StoredDeviceEnergy.incremented(ledger.transfers)
    }
    _ = StoredDeviceEnergy.incremented(state.generation)
    guard case .success(let again) = StateFileFormat.decode(StateFileFormat.encode(state)) else {
        fatalError("a decoded state does not decode after encoding")
    }
    if again.devices != state.devices || again.generation != state.generation
        || again.legacyFilesImported != state.legacyFilesImported {
        fatalError("encode/decode changed the state")
    }
}
