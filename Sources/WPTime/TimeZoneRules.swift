import WPPOSIX
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The offset from UTC of a time zone at any moment, daylight saving time included: a fixed
/// offset (`UTC`, `UTC+08:00`) or a zone of the system's time zone database
/// (`/usr/share/zoneinfo/Asia/Shanghai`, RFC 8536 TZif files: their transitions, then the POSIX
/// rule of their footer for the years after). FoundationEssentials' `TimeZone` knows no names
/// on Linux; this is what the energy tariffs' periods are counted in.
package struct TimeZoneRules: Sendable, Equatable {
    /// The instants (Unix seconds) the offset changes, ascending, and the offset from each.
    private var transitions: [Int64] = []
    private var offsets: [Int32] = []
    /// The offset before the first transition (or always, without any).
    private var initial: Int32 = 0
    /// What holds after the last transition.
    private var rule: PosixRule?

    /// A zone `seconds` east of UTC, with no daylight saving time.
    package static func fixed(_ seconds: Int) -> TimeZoneRules {
        var rules = TimeZoneRules()
        rules.initial = Int32(clamping: seconds)
        return rules
    }

    /// `UTC`, `GMT`, `UTC+08:00`, `UTC-05:30`, `+08:00` (at most 14 hours), or a name of the
    /// database under `directory` (letters, digits, `_`, `-`, `+`, `/`; no `..`); `nil` for
    /// anything else, a file that is not TZif, or one over 256 KiB.
    package static func named(_ name: String, directory: String = "/usr/share/zoneinfo") -> TimeZoneRules? {
        if let seconds = fixedOffset(name) { return .fixed(seconds) }
        // No `.` is allowed, so no `..` can climb out of `directory`.
        guard !name.isEmpty, name.utf8.count <= 64, !name.hasPrefix("/"),
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                  || "_-+/".unicodeScalars.contains($0)) }) else { return nil }
        return file(directory + "/" + name)
    }

    /// The most bytes a TZif file may hold (256 KiB; the largest of the database is under 4 KiB).
    static let fileLimit = 256 * 1024

    /// The zone of the TZif file at `path`; `nil` when it cannot be read, is not TZif, or is over 256 KiB.
    static func file(_ path: String) -> TimeZoneRules? {
        try? readFile(path).get()
    }

    /// Why a zone could not be read, in words (`/etc/localtime: it is a named pipe (FIFO), not a file`).
    package struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
        /// Whether the file was not there at all (no zone configured, not a broken one).
        var missing = false
    }

    /// The zone of the TZif file at `path`, or why not. The file is opened as every file named by
    /// a setting is (``POSIXFile/readRegularFile(_:limit:)``): a FIFO or a device is refused
    /// without blocking, a larger file without reading it whole.
    static func readFile(_ path: String) -> Result<TimeZoneRules, Problem> {
        switch POSIXFile.readRegularFile(path, limit: fileLimit) {
        case .failure(let refusal):
            return .failure(Problem(description: "\(path): \(refusal)", missing: refusal == .missing))
        case .success(let bytes):
            guard let rules = parse(bytes) else { return .failure(Problem(description: "\(path): not a TZif time zone file")) }
            return .success(rules)
        }
    }

    /// The system's time zone, as the C library takes it: `TZ` when set (a name of the
    /// database, an offset, or a POSIX rule such as `EST5EDT,M3.2.0,M11.1.0`, a leading `:`
    /// dropped; empty is UTC), else `localtime` (the system's TZif file); UTC when neither can be
    /// read.
    ///
    /// - Parameters:
    ///   - tz: the value of `TZ` (`nil`: not set).
    ///   - localtime: the system's zone file.
    ///   - directory: the database.
    package static func system(tz: String? = getenv("TZ").map { String(cString: $0) }, localtime: String = "/etc/localtime",
                               directory: String = "/usr/share/zoneinfo") -> TimeZoneRules {
        systemZone(tz: tz, localtime: localtime, directory: directory).rules
    }

    /// ``system(tz:localtime:directory:)`` and, when it fell back to UTC, why (for a warning):
    /// `TZ` names no zone that can be read, or the system's zone file cannot be read. A missing
    /// `localtime` is no problem (UTC is the C library's answer too).
    package static func systemZone(tz: String? = getenv("TZ").map { String(cString: $0) }, localtime: String = "/etc/localtime",
                                   directory: String = "/usr/share/zoneinfo") -> (rules: TimeZoneRules, problem: Problem?) {
        if let tz {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if name.isEmpty { return (.fixed(0), nil) }
            if name.hasPrefix("/") {
                switch readFile(name) {
                case .success(let rules): return (rules, nil)
                case .failure(let problem): return (.fixed(0), Problem(description: "TZ=\(tz): \(problem)"))
                }
            }
            if let rules = named(name, directory: directory) { return (rules, nil) }
            if let rule = PosixRule(name) {
                var rules = TimeZoneRules()
                rules.initial = rule.standard
                rules.rule = rule
                return (rules, nil)
            }
            return (.fixed(0), Problem(description: "TZ=\(tz): not a zone of \(directory), an offset such as UTC+08:00, or a POSIX rule"))
        }
        switch readFile(localtime) {
        case .success(let rules): return (rules, nil)
        case .failure(let problem) where problem.missing: return (.fixed(0), nil)
        case .failure(let problem): return (.fixed(0), problem)
        }
    }

    /// How a time in this zone is labelled at the Unix time `seconds`: `UTC`, or `UTC+08:00`,
    /// `UTC-05:30`.
    package func label(at seconds: Int64) -> String {
        let offset = offset(at: seconds)
        guard offset != 0 else { return "UTC" }
        let minutes = abs(offset) / 60
        let (hours, rest) = (minutes / 60, minutes % 60)
        return "UTC" + (offset < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }

    /// The seconds east of UTC of a fixed offset (`UTC`, `UTC+08:00`, `+8`), `nil` otherwise.
    package static func fixedOffset(_ text: String) -> Int? {
        var rest = Substring(text)
        if rest.hasPrefix("UTC") || rest.hasPrefix("GMT") { rest = rest.dropFirst(3) }
        if rest.isEmpty { return text.isEmpty ? nil : 0 }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let parts = rest.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
              let hours = Int(parts[0]), let minutes = parts.count == 2 ? Int(parts[1]) : 0,
              (0..<60).contains(minutes), hours >= 0, hours * 60 + minutes <= 14 * 60 else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    /// The offset from UTC in seconds at the Unix time `seconds`.
    package func offset(at seconds: Int64) -> Int {
        guard let last = transitions.last else { return rule.map { $0.offset(at: seconds) } ?? Int(initial) }
        guard seconds >= transitions[0] else { return Int(initial) }
        if seconds >= last, let rule { return rule.offset(at: seconds) }
        // The last transition at or before `seconds`.
        var (low, high) = (0, transitions.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= seconds { low = middle } else { high = middle - 1 }
        }
        return Int(offsets[low])
    }

    /// A TZif file (versions 1 to 4): the 64-bit data of version 2 and later, the 32-bit data of
    /// version 1; the footer's rule when there is one.
    static func parse(_ bytes: [UInt8]) -> TimeZoneRules? {
        func be(_ at: Int, _ width: Int) -> Int64? {
            guard at >= 0, at + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[at..<at + width] { value = value << 8 | Int64(byte) }
            // Sign-extend.
            let shift = Int64(64 - width * 8)
            return (value << shift) >> shift
        }
        func header(_ at: Int) -> (version: UInt8, counts: [Int])? {
            guard at + 44 <= bytes.count, Array(bytes[at..<at + 4]) == Array("TZif".utf8) else { return nil }
            var counts: [Int] = []
            for index in 0..<6 {
                guard let count = be(at + 20 + index * 4, 4), (0...100_000).contains(count) else { return nil }
                counts.append(Int(count))
            }
            return (bytes[at + 4], counts)
        }
        guard let first = header(0) else { return nil }
        // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
        func blockSize(_ counts: [Int], timeWidth: Int) -> Int {
            counts[3] * timeWidth + counts[3] + counts[4] * 6 + counts[5] + counts[2] * (timeWidth + 4) + counts[1] + counts[0]
        }
        var start = 44
        var counts = first.counts
        var width = 4
        if first.version >= UInt8(ascii: "2") {
            let second = 44 + blockSize(first.counts, timeWidth: 4)
            guard let header2 = header(second) else { return nil }
            (start, counts, width) = (second + 44, header2.counts, 8)
        }
        let (timeCount, typeCount) = (counts[3], counts[4])
        guard typeCount > 0, start + blockSize(counts, timeWidth: width) <= bytes.count else { return nil }
        let typeStart = start + timeCount * width + timeCount
        var typeOffsets: [Int32] = []
        for index in 0..<typeCount {
            guard let offset = be(typeStart + index * 6, 4), abs(offset) <= 26 * 3600 else { return nil }
            typeOffsets.append(Int32(offset))
        }
        var rules = TimeZoneRules()
        rules.initial = typeOffsets[0]
        for index in 0..<timeCount {
            guard let time = be(start + index * width, width) else { return nil }
            let type = Int(bytes[start + timeCount * width + index])
            guard type < typeCount, rules.transitions.last.map({ $0 < time }) ?? true else { return nil }
            rules.transitions.append(time)
            rules.offsets.append(typeOffsets[type])
        }
        if width == 8 {
            let footer = start + blockSize(counts, timeWidth: 8)
            if footer < bytes.count, bytes[footer] == 0x0A, let end = bytes[(footer + 1)...].firstIndex(of: 0x0A) {
                rules.rule = PosixRule(String(decoding: bytes[(footer + 1)..<end], as: UTF8.self))
            }
        }
        // Without a footer rule, the last offset holds after the last transition.
        if rules.rule == nil, let last = rules.offsets.last { rules.rule = PosixRule(standard: last) }
        return rules
    }
}

/// A POSIX `TZ` rule of a TZif footer: `CST-8`, `<+08>-8`, `CET-1CEST,M3.5.0,M10.5.0/3`,
/// `EST5EDT,M3.2.0,M11.1.0`. Daylight saving rules in `Mm.w.d[/time]` form; a rule in another
/// form (`Jn`, `n`) is read as its standard time.
struct PosixRule: Sendable, Equatable {
    struct Change: Sendable, Equatable {
        var month: Int, week: Int, weekday: Int, seconds: Int
    }

    var standard: Int32
    var daylight: Int32?
    var start: Change?
    var end: Change?

    init(standard: Int32) {
        self.standard = standard
    }

    init?(_ text: String) {
        var rest = Substring(text)
        func name() -> Bool {
            if rest.first == "<" {
                guard let close = rest.firstIndex(of: ">") else { return false }
                rest = rest[rest.index(after: close)...]
                return true
            }
            let letters = rest.prefix { $0.isLetter }
            guard letters.count >= 3 else { return false }
            rest = rest.dropFirst(letters.count)
            return true
        }
        /// `[+-]hh[:mm[:ss]]` in seconds.
        func time() -> Int? {
            var sign = 1
            if rest.first == "+" || rest.first == "-" {
                sign = rest.first == "-" ? -1 : 1
                rest = rest.dropFirst()
            }
            let text = rest.prefix { $0.isNumber || $0 == ":" }
            rest = rest.dropFirst(text.count)
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard (1...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
            let values = parts.map { $0! } + [0, 0]
            guard values[0] <= 167 else { return nil }
            return sign * (values[0] * 3600 + values[1] * 60 + values[2])
        }
        func change() -> Change? {
            guard rest.first == "M" else { return nil }
            rest = rest.dropFirst()
            let fields = rest.prefix { $0.isNumber || $0 == "." }
            rest = rest.dropFirst(fields.count)
            let numbers = fields.split(separator: ".").compactMap { Int($0) }
            guard numbers.count == 3, (1...12).contains(numbers[0]), (1...5).contains(numbers[1]), (0...6).contains(numbers[2]) else {
                return nil
            }
            var seconds = 7200
            if rest.first == "/" {
                rest = rest.dropFirst()
                guard let at = time() else { return nil }
                seconds = at
            }
            return Change(month: numbers[0], week: numbers[1], weekday: numbers[2], seconds: seconds)
        }
        guard name(), let standardTime = time() else { return nil }
        standard = Int32(-standardTime)   // POSIX offsets are west of UTC
        guard !rest.isEmpty else { return }
        guard name() else { return nil }
        var daylightOffset = Int(standard) + 3600
        if rest.first != ",", !rest.isEmpty {
            guard let time = time() else { return nil }
            daylightOffset = -time
        }
        guard rest.first == "," else { return nil }
        rest = rest.dropFirst()
        guard let start = change(), rest.first == "," else { return }   // another form: standard time only
        rest = rest.dropFirst()
        guard let end = change() else { return }
        (self.daylight, self.start, self.end) = (Int32(daylightOffset), start, end)
    }

    /// The offset at the Unix time `seconds`.
    func offset(at seconds: Int64) -> Int {
        guard let daylight, let start, let end else { return Int(standard) }
        // The year of the local standard time.
        let year = Self.year(of: seconds + Int64(standard))
        // The change to daylight time happens at its time in standard time, the change back at its
        // time in daylight time.
        let begins = Self.instant(start, year: year) - Int64(standard)
        let ends = Self.instant(end, year: year) - Int64(daylight)
        let inDaylight = begins < ends ? (seconds >= begins && seconds < ends) : (seconds >= begins || seconds < ends)
        return Int(inDaylight ? daylight : standard)
    }

    /// The year of the Unix time `seconds`.
    static func year(of seconds: Int64) -> Int64 {
        CivilDate.date(days: CivilDate.days(containing: seconds)).year
    }

    /// The local seconds since the epoch of a `Mm.w.d/time` change in `year`.
    static func instant(_ change: Change, year: Int64) -> Int64 {
        let first = CivilDate.days(year: year, month: Int64(change.month), day: 1)
        // 1970-01-01 was a Thursday (4).
        let weekday = Int((first % 7 + 7 + 4) % 7)
        var day = 1 + (change.weekday - weekday + 7) % 7 + (change.week - 1) * 7
        let nextMonth = change.month == 12 ? CivilDate.days(year: year + 1, month: 1, day: 1)
            : CivilDate.days(year: year, month: Int64(change.month) + 1, day: 1)
        let length = Int(nextMonth - first)
        while day > length { day -= 7 }
        return (first + Int64(day - 1)) * 86_400 + Int64(change.seconds)
    }
}
