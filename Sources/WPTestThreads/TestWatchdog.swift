#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WPPOSIX
import Synchronization
import WPRuntime

/// Ends a test process that stops making progress, naming what it was waiting for.
///
/// Swift Testing's `.timeLimit` runs on Swift's cooperative pool: a run whose pool threads are
/// all gone or blocked never reaches it, and sat at 0 % CPU until CI's own limit, with no word
/// of which test hung (and `timeout` on `swift test` left the test binary running). Every test
/// with ``OwnThreadsTrait`` (every suite: the gate checks) says here when it starts and ends; a
/// thread of the process's own checks every few seconds, and when no test started or ended for
/// ``stallLimit`` while some are running, it writes each test that started and never ended
/// (with how long ago) to standard error, ends the child processes the tests started
/// (``onStall(_:)``), and exits with status 70 (`EX_SOFTWARE`).
///
/// The limit is `WPEXPORTER_TEST_STALL_SECONDS` when set (`0` turns the watchdog off), else
/// 1,500 s: above the longest time limit of any test (22 minutes, CrashTests': 4 times its
/// slowest run at load 15–21), so it only ends a run in which a time limit could not.
package final class TestWatchdog: Sendable {
    /// The watchdog of this test process.
    package static let shared = TestWatchdog(stallLimit: {
        guard let text = getenv("WPEXPORTER_TEST_STALL_SECONDS").map({ String(cString: $0) }), let value = Int(text), value >= 0 else {
            return .seconds(1_500)
        }
        return .seconds(value)
    }())

    /// How long the process may go without a test starting or ending while tests run.
    package let stallLimit: Duration
    private let watching: Bool
    private let report: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var running: [UInt64: (name: String, since: ContinuousClock.Instant)] = [:]
        var cleanups: [UInt64: @Sendable () -> Void] = [:]
        var next: UInt64 = 0
        var lastProgress = ContinuousClock.now
        var watching = false
        var fired = false
    }

    /// - Parameters:
    ///   - stallLimit: how long without progress ends the process (`.zero`: never).
    ///   - report: told the stall's report; by default it is written to standard error and the
    ///     process exits with status 70 once the cleanups ran.
    ///   - watching: starts the thread that checks (`false`: the caller calls ``stall(at:)``).
    package init(stallLimit: Duration, watching: Bool = true, report: (@Sendable (String) -> Void)? = nil) {
        self.stallLimit = stallLimit
        self.watching = watching
        self.report = report ?? { text in
            let bytes = Array(text.utf8)
            _ = POSIXFile.writeAll(2, bytes)
            _exit(70)
        }
    }

    /// Notes that `name` started; pass the token to ``ended(_:)``.
    package func started(_ name: String) -> UInt64 {
        let (token, start) = state.withLock { state -> (UInt64, Bool) in
            state.next += 1
            state.running[state.next] = (name, ContinuousClock.now)
            state.lastProgress = ContinuousClock.now
            defer { state.watching = true }
            return (state.next, !state.watching && watching && stallLimit > .zero)
        }
        if start { try? NamedThread.start(name: "test-watchdog") { [self] in watch() } }
        return token
    }

    /// Notes that the test of `token` ended.
    package func ended(_ token: UInt64) {
        state.withLock { state in
            state.running[token] = nil
            state.lastProgress = ContinuousClock.now
        }
    }

    /// Runs `cleanup` if the process is ended for a stall (a child process to kill); the
    /// returned token withdraws it (``withdraw(_:)``).
    package func onStall(_ cleanup: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.cleanups[state.next] = cleanup
            return state.next
        }
    }

    /// Withdraws a cleanup ``onStall(_:)`` registered.
    package func withdraw(_ token: UInt64) {
        _ = state.withLock { $0.cleanups.removeValue(forKey: token) }
    }

    /// The report of a stall now, or `nil` when there is none: no test running, or progress
    /// within the limit.
    package func stall(at now: ContinuousClock.Instant = .now) -> String? {
        state.withLock { state -> String? in
            guard !state.fired, !state.running.isEmpty, stallLimit > .zero, now - state.lastProgress >= stallLimit else { return nil }
            state.fired = true
            var text = "test watchdog: no test started or ended for \(Self.seconds(now - state.lastProgress)) s"
                + " (WPEXPORTER_TEST_STALL_SECONDS); these started and never ended:\n"
            for (_, test) in state.running.sorted(by: { $0.value.since < $1.value.since }) {
                text += "  \(test.name) (started \(Self.seconds(now - test.since)) s ago)\n"
            }
            return text + "test watchdog: ending the child processes and the test process (exit status 70)\n"
        }
    }

    /// Ends the stall: the cleanups, then the report (which exits, by default).
    package func fire(_ text: String) {
        let cleanups = state.withLock { state in Array(state.cleanups.values) }
        for cleanup in cleanups { cleanup() }
        report(text)
    }

    private func watch() {
        let period = min(stallLimit / 10, .seconds(5))
        while true {
            var pause = timespec(tv_sec: Int(period.components.seconds), tv_nsec: Int(period.components.attoseconds / 1_000_000_000))
            var left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
            if let text = stall() {
                fire(text)
                return
            }
        }
    }

    private static func seconds(_ duration: Duration) -> Int { Int(duration.components.seconds) }
}
