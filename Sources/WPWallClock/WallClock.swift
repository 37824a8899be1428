#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import WPLogging
public import WPRuntime

/// Where the libraries read the time of day: the system's clock, or one a test sets or moves.
///
/// Durations, timeouts and the readings' instants come from a `Clock` (monotonic); the time of
/// day — what people read, what files and journals store, what a schedule or a token's expiry
/// names — comes from a `WallClock`. The exporter's options hold one, and every part it makes
/// (the WinPower client, the collector, the energy store, the front ends) reads that one, so a
/// test that moves a `ManualClock` moves the time of day with it (``following(_:from:)``).
///
/// ```swift
/// let system = WallClock.system                      // Date() at each read
/// let fixed = WallClock.fixed(Date(timeIntervalSince1970: 1_795_315_039))
/// let clock = ManualClock()
/// let moved = WallClock.following(clock, from: Date(timeIntervalSince1970: 1_795_315_039))
/// clock.advance(by: .seconds(90))
/// print(system.now, fixed.timestamp, moved.now)      // …, 2026-11-22T02:37:19.000Z, 90 s later
/// ```
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    /// A wall clock that reads the time of day from `read` (called at each ``now``).
    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    /// The system's time of day (`Date()` at each read): the default everywhere.
    public static let system = WallClock { Date() }

    /// A wall clock that always reads `date`.
    public static func fixed(_ date: Date) -> WallClock {
        WallClock { date }
    }

    /// A wall clock that reads `start` plus the time `clock` has been advanced by: the time of
    /// day moves with a test's manual clock.
    public static func following(_ clock: ManualClock, from start: Date) -> WallClock {
        WallClock { start.addingTimeInterval(clock.now.offset.inSeconds) }
    }

    /// The time of day now.
    public var now: Date { read() }

    /// The time of day now in whole seconds since 1970-01-01T00:00:00Z, rounded toward the past:
    /// what the journals, the history and the pages store and compare.
    public var unixSeconds: Int64 { Int64(read().timeIntervalSince1970.rounded(.down)) }

    /// The time of day now as the text formatter's value (`LogTimestamp`, to the microsecond).
    public var timestamp: LogTimestamp { LogTimestamp(secondsSince1970: read().timeIntervalSince1970) }
}
