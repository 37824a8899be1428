// libFuzzer target for the energy state file decoder. Built by scripts/fuzz.sh state-file
// together with the format's sources (not part of the package build).
//
// Each input is decoded twice: as it is (nearly always refused by the checksum), and with a
// correct checksum line appended, so the fuzzer explores the format behind the checksum.
// A decoded state must hold only totals that are finite and ≥ 0 and gap counts within range,
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
