/// The rule that keeps per-alarm series bounded.
///
/// A label value only ever comes from an alarm *code* (the decoder never takes a
/// per-occurrence `id`/`alarmId`), and a device exports at most ``limit`` distinct codes,
/// sorted, so the same codes give the same series in every cycle. Codes beyond the limit, and
/// codes that are empty or longer than ``longestCode`` characters, are counted in
/// `winpower_device_alarm_codes_dropped` instead.
enum AlarmSeries {
    /// Distinct alarm series exported per device.
    static let limit = 16
    /// The longest code used as a label value, in characters.
    static let longestCode = 32

    /// The codes to export (sorted, distinct, at most ``limit``) and how many distinct codes
    /// were left out.
    static func bounded(_ codes: [String]) -> (kept: [String], dropped: Int) {
        let distinct = Set(codes)
        let usable = distinct.filter { !$0.isEmpty && $0.count <= longestCode }.sorted()
        let kept = Array(usable.prefix(limit))
        return (kept, distinct.count - kept.count)
    }
}
