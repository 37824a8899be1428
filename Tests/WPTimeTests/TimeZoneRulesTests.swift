@testable import WPTime
import Foundation
import Testing
import WPTestThreads

/// Offsets from UTC by time zone: fixed ones, the system's database (TZif files and their
/// POSIX footer rules, daylight saving time included), and files that are not TZif.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct TimeZoneRulesTests {
    static let zoneinfo = FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/Berlin")

    /// Unix time of a UTC date.
    static func utc(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
        CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
    }

    @Test func fixedOffsets() {
        #expect(TimeZoneRules.named("UTC")?.offset(at: 0) == 0)
        #expect(TimeZoneRules.named("UTC+08:00")?.offset(at: Self.utc(2026, 7, 1)) == 28_800)
        #expect(TimeZoneRules.named("UTC-05:30")?.offset(at: 0) == -19_800)
        for bad in ["", "/etc/passwd", "../etc/passwd", "Asia/../../etc/passwd", "Not/A_Zone", "UTC+15", "a b"] {
            #expect(TimeZoneRules.named(bad) == nil, "\(bad)")
        }
    }

    @Test(.enabled(if: zoneinfo)) func theDatabaseWithItsDaylightSavingRules() throws {
        let shanghai = try #require(TimeZoneRules.named("Asia/Shanghai"))
        #expect(shanghai.offset(at: Self.utc(2026, 1, 15)) == 28_800 && shanghai.offset(at: Self.utc(2026, 7, 15)) == 28_800)
        let berlin = try #require(TimeZoneRules.named("Europe/Berlin"))
        #expect(berlin.offset(at: Self.utc(2026, 1, 15)) == 3600)
        #expect(berlin.offset(at: Self.utc(2026, 7, 15)) == 7200)
        // 2026-03-29 01:00 UTC summer time begins; 2026-10-25 01:00 UTC it ends.
        #expect(berlin.offset(at: Self.utc(2026, 3, 29, 0, 59)) == 3600 && berlin.offset(at: Self.utc(2026, 3, 29, 1, 0)) == 7200)
        #expect(berlin.offset(at: Self.utc(2026, 10, 25, 0, 59)) == 7200 && berlin.offset(at: Self.utc(2026, 10, 25, 1, 0)) == 3600)
        // Far past the file's transitions: the footer's rule.
        #expect(berlin.offset(at: Self.utc(2100, 7, 1)) == 7200 && berlin.offset(at: Self.utc(2100, 1, 1)) == 3600)
        let newYork = try #require(TimeZoneRules.named("America/New_York"))
        #expect(newYork.offset(at: Self.utc(2026, 7, 1)) == -14_400 && newYork.offset(at: Self.utc(2026, 12, 1)) == -18_000)
        let sydney = try #require(TimeZoneRules.named("Australia/Sydney"))   // summer in January
        #expect(sydney.offset(at: Self.utc(2026, 1, 15)) == 39_600 && sydney.offset(at: Self.utc(2026, 7, 15)) == 36_000)
    }

    @Test func footerRules() throws {
        let cet = try #require(PosixRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(cet.offset(at: Self.utc(2030, 6, 1)) == 7200 && cet.offset(at: Self.utc(2030, 12, 1)) == 3600)
        #expect(PosixRule("<+08>-8")?.offset(at: 0) == 28_800)
        #expect(PosixRule("CST-8")?.offset(at: 0) == 28_800)
        for bad in ["", "C-8", "CET", "<+08", "CET-1CEST,M13.5.0,M10.5.0"] {
            #expect(PosixRule(bad) == nil || PosixRule(bad)?.daylight == nil, "\(bad)")
        }
    }

    @Test func bytesThatAreNotTZifAreRefused() {
        #expect(TimeZoneRules.parse([]) == nil)
        #expect(TimeZoneRules.parse(Array("TZif2".utf8) + [UInt8](repeating: 0xFF, count: 60)) == nil)
        #expect(TimeZoneRules.parse([UInt8](repeating: 0, count: 4096)) == nil)
    }

    @Test(.enabled(if: zoneinfo)) func theSystemsZoneIsTZElseLocaltime() {
        let july = Self.utc(2026, 7, 1)
        let missing = "/nonexistent/localtime"
        #expect(TimeZoneRules.system(tz: "Asia/Shanghai", localtime: missing).offset(at: july) == 28_800)
        #expect(TimeZoneRules.system(tz: ":Europe/Berlin", localtime: missing).offset(at: july) == 7200)
        #expect(TimeZoneRules.system(tz: "/usr/share/zoneinfo/Asia/Tokyo", localtime: missing).offset(at: july) == 32_400)
        #expect(TimeZoneRules.system(tz: "UTC+05:30", localtime: missing).offset(at: july) == 19_800)
        #expect(TimeZoneRules.system(tz: "", localtime: "/usr/share/zoneinfo/Asia/Tokyo").offset(at: july) == 0, "an empty TZ is UTC")
        #expect(TimeZoneRules.system(tz: nil, localtime: "/usr/share/zoneinfo/Asia/Tokyo").offset(at: july) == 32_400)
        #expect(TimeZoneRules.system(tz: nil, localtime: missing) == .fixed(0))
        #expect(TimeZoneRules.system(tz: "Not/A_Zone", localtime: "/usr/share/zoneinfo/Asia/Tokyo") == .fixed(0))
    }

    /// A FIFO (or a device) where a zone file is expected, as `TZ=/path`, the system's
    /// `localtime` or a name of the database, is refused at once and named, never waited on.
    @Test func aFIFOOrADeviceIsRefusedWithoutBlocking() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tz-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/Asia", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/Asia/Shanghai"
        #expect(mkfifo(fifo, 0o600) == 0)
        let fromTZ = TimeZoneRules.systemZone(tz: fifo, localtime: "/nonexistent", directory: directory)
        #expect(fromTZ.rules == .fixed(0))
        #expect(fromTZ.problem?.description == "TZ=\(fifo): \(fifo): it is a named pipe (FIFO), not a file")
        let fromLocaltime = TimeZoneRules.systemZone(tz: nil, localtime: fifo, directory: directory)
        #expect(fromLocaltime.problem?.description == "\(fifo): it is a named pipe (FIFO), not a file")
        #expect(TimeZoneRules.named("Asia/Shanghai", directory: directory) == nil)
        let device = TimeZoneRules.systemZone(tz: "/dev/zero", localtime: "/nonexistent")
        #expect(device.problem?.description == "TZ=/dev/zero: /dev/zero: it is a character device, not a file")
        // A missing localtime is UTC without a word, as the C library has it.
        #expect(TimeZoneRules.systemZone(tz: nil, localtime: directory + "/none").problem == nil)
    }

    /// `TZ` as a POSIX rule (glibc reads `EST5EDT,M3.2.0,M11.1.0` without any file) is honoured;
    /// what is neither a zone nor a rule falls back to UTC with its reason.
    @Test func aPOSIXRuleInTZIsHonouredAndNonsenseNamed() {
        let rule = TimeZoneRules.systemZone(tz: "EST5EDT,M3.2.0,M11.1.0", localtime: "/nonexistent", directory: "/nonexistent")
        #expect(rule.problem == nil)
        #expect(rule.rules.offset(at: Self.utc(2026, 1, 15)) == -18_000)
        #expect(rule.rules.offset(at: Self.utc(2026, 7, 1)) == -14_400)
        #expect(TimeZoneRules.systemZone(tz: "CST-8", localtime: "/nonexistent", directory: "/nonexistent").rules.offset(at: 0) == 28_800)
        let nonsense = TimeZoneRules.systemZone(tz: "Not/A_Zone", localtime: "/nonexistent", directory: "/nonexistent")
        #expect(nonsense.rules == .fixed(0))
        #expect(nonsense.problem?.description.hasPrefix("TZ=Not/A_Zone: not a zone of /nonexistent") == true)
    }

    @Test func labels() {
        #expect(TimeZoneRules.fixed(0).label(at: 0) == "UTC")
        #expect(TimeZoneRules.fixed(28_800).label(at: 0) == "UTC+08:00")
        #expect(TimeZoneRules.fixed(-19_800).label(at: 0) == "UTC-05:30")
        #expect(TimeZoneRules.fixed(45_900).label(at: 0) == "UTC+12:45")
    }

    @Test func civilDatesRoundTripThroughDays() {
        #expect(CivilDate.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilDate.days(year: 2000, month: 3, day: 1) == 11_017)
        #expect(CivilDate.date(days: -1) == (1969, 12, 31))
        #expect(CivilDate.date(days: 20_512) == (2026, 2, 28))
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let date = CivilDate.date(days: days)
            #expect(CivilDate.days(year: date.year, month: date.month, day: date.day) == days)
        }
    }
}
