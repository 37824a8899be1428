import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct LogTimestampTests {
    @Test func nanosecondsAreNormalisedIntoZeroToOneSecond() {
        let late = LogTimestamp(seconds: 10, nanoseconds: 2_500_000_000)
        #expect(late.seconds == 12 && late.nanoseconds == 500_000_000)
        let early = LogTimestamp(seconds: 0, nanoseconds: -250_000_000)
        #expect(early.seconds == -1 && early.nanoseconds == 750_000_000)
        let exact = LogTimestamp(seconds: 5, nanoseconds: -1_000_000_000)
        #expect(exact == LogTimestamp(seconds: 4))
    }

    @Test func arithmeticSaturatesInsteadOfTrapping() {
        #expect(LogTimestamp(seconds: .max, nanoseconds: 3_000_000_000).seconds == .max)
        #expect(LogTimestamp(seconds: .min, nanoseconds: -3_000_000_000).seconds == .min)
        #expect(LogTimestamp(seconds: .max).advanced(bySeconds: 1e13).seconds == .max)
        #expect(LogTimestamp(seconds: .min).advanced(bySeconds: -1e13).seconds == .min)
        #expect(LogTimestamp(seconds: 7).advanced(bySeconds: .nan) == LogTimestamp(seconds: 7))
        #expect(LogTimestamp(seconds: .max).seconds(since: LogTimestamp(seconds: .min)) > 1e18)
    }

    @Test func fractionalSecondsRoundToTheNearestMicrosecond() {
        let time = LogTimestamp(secondsSince1970: 1_795_315_039.123)
        #expect(time == LogTimestamp(seconds: 1_795_315_039, nanoseconds: 123_000_000))
        let before = LogTimestamp(secondsSince1970: -0.001)
        #expect(before.seconds == -1 && before.nanoseconds == 999_000_000)
        #expect(LogTimestamp(secondsSince1970: .infinity) == .epoch)
        #expect(LogTimestamp(secondsSince1970: 1e300).seconds == 10_000_000_000_000)
        #expect(LogTimestamp(seconds: -2, nanoseconds: 500_000_000).secondsSince1970 == -1.5)
    }

    @Test func advancingAndMeasuringAreInverse() {
        let start = LogTimestamp(seconds: 1_795_315_039, nanoseconds: 123_000_000)
        let later = start.advanced(bySeconds: 86_400.25)
        #expect(later == LogTimestamp(seconds: 1_795_401_439, nanoseconds: 373_000_000))
        #expect(later.seconds(since: start) == 86_400.25)
        #expect(start.seconds(since: later) == -86_400.25)
        let back = start.advanced(bySeconds: -0.5)
        #expect(back == LogTimestamp(seconds: 1_795_315_038, nanoseconds: 623_000_000))
        #expect(back < start && start < later)
    }

    @Test func descriptionIsRFC3339WithTruncatedMilliseconds() {
        #expect(LogTimestamp(seconds: 1_795_315_039, nanoseconds: 123_999_999).description == "2026-11-22T02:37:19.123Z")
        #expect(LogTimestamp.epoch.description == "1970-01-01T00:00:00.000Z")
    }

    @Test func nowReadsTheSameWallClockAsFoundation() {
        let before = LogTimestamp(Date())
        let now = LogTimestamp.now()
        let after = LogTimestamp(Date())
        // Date rounds to microseconds here; allow that much slack either side.
        #expect(now.seconds(since: before) > -0.000_001)
        #expect(after.seconds(since: now) > -0.000_001)
        #expect(now.seconds > 1_700_000_000)
    }

    /// The module must stay free of Foundation and Dispatch so a binary linking only WPLogging
    /// (and WPServer) never maps those libraries; `Benchmarks/measure/loadtest.sh` measures the effect.
    @Test func loggingSourcesImportNeitherFoundationNorDispatch() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/WPLogging").standardized.path
        let names = try FileManager.default.contentsOfDirectory(atPath: sources).filter { $0.hasSuffix(".swift") }
        #expect(names.count > 10)
        for name in names {
            let text = try String(contentsOfFile: sources + "/" + name, encoding: .utf8)
            let imports = text.split(separator: "\n").filter { line in
                !line.trimmingPrefix(while: \.isWhitespace).hasPrefix("//") && line.contains("import ") && (line.contains("Foundation") || line.contains("Dispatch"))
            }
            #expect(imports.isEmpty, "\(name) imports \(imports)")
        }
    }

    @Test func aTimeIsCutToTheDayMinuteOrSecondItShows() {
        let time = LogTimestamp(seconds: 1_795_315_039, nanoseconds: 987_000_000)  // 2026-11-22T02:37:19.987Z
        #expect(time.text(.month) == "2026-11")
        #expect(time.text(.day) == "2026-11-22")
        #expect(time.text(.minute) == "2026-11-22 02:37")
        #expect(time.text(.second) == "2026-11-22 02:37:19")
        #expect(time.text(.rfc3339Seconds) == "2026-11-22T02:37:19Z", "milliseconds dropped, never rounded up")
        #expect(time.text(.monthDay) == "11-22" && time.text(.hourMinute) == "02:37")
        #expect(LogTimestamp(seconds: -1).text(.second) == "1969-12-31 23:59:59")
    }
}
