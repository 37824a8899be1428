// libFuzzer target for the import of the previous exporter's `<device_id>.txt` files. Built by
// scripts/fuzz.sh legacy-txt together with the importer's sources (not part of the package build).
//
// An accepted file must give a positive timestamp and an energy that is finite and ≥ 0 in Wh
// and still finite in joules (what the state file stores).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLegacyImport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    switch LegacyImport.parse(bytes) {
    case .success(let (millis, wattHours)):
        if millis <= 0 { fatalError("timestamp \(millis)") }
        if !wattHours.isFinite || wattHours < 0 || !(wattHours * 3600).isFinite { fatalError("energy \(wattHours) Wh") }
    case .failure(let rejection):
        if rejection.description.isEmpty { fatalError("rejection without a reason") }
    }
    return 0
}
