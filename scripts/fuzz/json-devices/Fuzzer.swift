// libFuzzer target for the JSON scanner and WinPower's device-list and login decoders. Built by
// scripts/fuzz.sh json-devices together with their sources (not part of the package build).
//
// Besides "never crash" (deep nesting, huge numbers, bad escapes and UTF-8 included), it checks
// that decoding is a function of the bytes (the same input decodes to the same page twice) and
// that every decoded device has an id.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeviceList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let decoder = DeviceListDecoder()
    let first = try? decoder.decodeDeviceList(bytes)
    let second = try? decoder.decodeDeviceList(bytes)
    if first != second { fatalError("the same bytes decoded differently") }
    if let first, first.devices.contains(where: { $0.id.isEmpty }) { fatalError("a device without an id") }
    _ = try? decoder.decodeLogin(bytes)
    return 0
}
