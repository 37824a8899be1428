import FoundationEssentials

/// The `o` line of a state file (version 2): one device's ``StoredOutageLedger`` as space-separated
/// `key=value` fields, written only when not at their default, in this order:
///
/// | key | value |
/// |---|---|
/// | `transfers` | transfers to battery (integer ≥ 0) |
/// | `battery-s` | seconds on battery (finite ≥ 0) |
/// | `discharge-j` | joules delivered on battery (finite ≥ 0) |
/// | `hist` | outage-duration bucket counts, not cumulative, comma-separated, ``StoredOutageLedger/durationBucketCount`` of them (the histogram's bounds, then `+Inf`) |
/// | `hist-sum` | sum of observed durations, seconds (finite ≥ 0) |
/// | `start-ms`, `end-ms`, `test-ms` | last outage start / end, last self-test start (Unix ms) |
/// | `duration-s`, `runtime-s` | last outage duration (≥ 0) and runtime remaining (finite) |
/// | `tests`, `test-status` | self-tests seen, last raw `testStatus` code |
/// | `outage`, `open-runtime-s` | `1` while an outage is in progress, its latest runtime |
/// | `test` | `1` while a self-test is in progress |
///
/// An unknown key, a repeated key or a value out of range rejects the file (the backup is
/// used): a ledger is never half read.
extension StateFileFormat {
    /// Timestamps beyond ±10¹⁴ ms (year ±5000) are refused: they would not round-trip.
    static let maxLedgerMillis: Int64 = 100_000_000_000_000

    /// Unix milliseconds of `date`, clamped into what decoding accepts.
    static func ledgerMillis(_ date: Date) -> Int64 {
        min(max(clampedMillis(date), -maxLedgerMillis), maxLedgerMillis)
    }

    static func appendLedgerLine(_ ledger: StoredOutageLedger, to text: inout String) {
        var line = "o"
        if ledger.transfers != 0 { line += " transfers=\(ledger.transfers)" }
        if ledger.onBatterySeconds != 0 { line += " battery-s=\(ledger.onBatterySeconds)" }
        if ledger.dischargeJoules != 0 { line += " discharge-j=\(ledger.dischargeJoules)" }
        if ledger.durationCounts.reduce(0, { $0 &+ $1 }) != 0 {
            line += " hist=" + ledger.durationCounts.map(String.init).joined(separator: ",")
        }
        if ledger.durationSum != 0 { line += " hist-sum=\(ledger.durationSum)" }
        if let date = ledger.lastStart { line += " start-ms=\(ledgerMillis(date))" }
        if let date = ledger.lastEnd { line += " end-ms=\(ledgerMillis(date))" }
        if let seconds = ledger.lastDuration { line += " duration-s=\(seconds)" }
        if let seconds = ledger.lastRuntime { line += " runtime-s=\(seconds)" }
        if ledger.tests != 0 { line += " tests=\(ledger.tests)" }
        if let date = ledger.lastTest { line += " test-ms=\(ledgerMillis(date))" }
        if let code = ledger.lastTestStatus { line += " test-status=\(code)" }
        if ledger.inOutage { line += " outage=1" }
        if let seconds = ledger.openRuntime { line += " open-runtime-s=\(seconds)" }
        if ledger.inTest { line += " test=1" }
        text += line + "\n"
    }

    static func ledgerLine(_ line: Substring, number: Int) throws(FormatFailure) -> StoredOutageLedger {
        var ledger = StoredOutageLedger()
        var seen: Set<Substring> = []
        for field in line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: false) {
            guard let equals = field.firstIndex(of: "=") else {
                throw FormatFailure("line \(number): ledger field '\(field)' is not key=value")
            }
            let key = field[..<equals], value = field[field.index(after: equals)...]
            guard seen.insert(key).inserted else { throw FormatFailure("line \(number): ledger key '\(key)' repeats") }
            let bad = FormatFailure("line \(number): ledger value '\(field)' is out of range")
            switch key {
            case "transfers": ledger.transfers = try count(value, bad)
            case "battery-s": ledger.onBatterySeconds = try amount(value, bad)
            case "discharge-j": ledger.dischargeJoules = try amount(value, bad)
            case "hist":
                let counts = try value.split(separator: ",", omittingEmptySubsequences: false).map { part throws(FormatFailure) in
                    try count(part, bad)
                }
                guard counts.count == StoredOutageLedger.durationBucketCount else { throw bad }
                ledger.durationCounts = counts
            case "hist-sum": ledger.durationSum = try amount(value, bad)
            case "start-ms": ledger.lastStart = try date(value, bad)
            case "end-ms": ledger.lastEnd = try date(value, bad)
            case "duration-s": ledger.lastDuration = try amount(value, bad)
            case "runtime-s": ledger.lastRuntime = try finite(value, bad)
            case "tests": ledger.tests = try count(value, bad)
            case "test-ms": ledger.lastTest = try date(value, bad)
            case "test-status": ledger.lastTestStatus = try Int(value).orThrow(bad)
            case "outage": ledger.inOutage = try flag(value, bad)
            case "open-runtime-s": ledger.openRuntime = try finite(value, bad)
            case "test": ledger.inTest = try flag(value, bad)
            default: throw FormatFailure("line \(number): unknown ledger key '\(key)'")
            }
        }
        return ledger
    }

    /// A count ≥ 0, clamped to what the exporter counts exactly (like gap counts).
    private static func count(_ text: Substring, _ bad: FormatFailure) throws(FormatFailure) -> Int {
        guard let value = Int(text), value >= 0 else { throw bad }
        return StoredDeviceEnergy.clampedGaps(value)
    }

    private static func amount(_ text: Substring, _ bad: FormatFailure) throws(FormatFailure) -> Double {
        let value = try finite(text, bad)
        guard value >= 0 else { throw bad }
        return value
    }

    private static func finite(_ text: Substring, _ bad: FormatFailure) throws(FormatFailure) -> Double {
        guard let value = Double(text), value.isFinite else { throw bad }
        return value
    }

    private static func date(_ text: Substring, _ bad: FormatFailure) throws(FormatFailure) -> Date {
        guard let millis = Int64(text), abs(millis) <= maxLedgerMillis else { throw bad }
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    private static func flag(_ text: Substring, _ bad: FormatFailure) throws(FormatFailure) -> Bool {
        guard text == "1" else { throw bad }
        return true
    }
}

private extension Optional {
    func orThrow(_ failure: StateFileFormat.FormatFailure) throws(StateFileFormat.FormatFailure) -> Wrapped {
        guard let self else { throw failure }
        return self
    }
}
