public import WPCSystem
import Synchronization

/// Remembers recent failed logins per client address, so that an address guessing passwords
/// is slowed: its verifications wait in the pool's ``BCryptPool/Lane/suspect`` lane and its
/// `401` answers are delayed, growing with its failures.
///
/// An address becomes suspect after `threshold` failures within `window`; a success or a quiet
/// window forgets it. At most `capacity` addresses are tracked; when full, the entries older
/// than the window are dropped first, then all (an attacker rotating addresses gains nothing
/// but a reset of the delays, never memory).
public final class AuthFailureTracker: Sendable {
    private struct Record {
        var failures: Int
        var last: Int64
    }

    /// Failures within ``window`` that make an address suspect (at least 1).
    public let threshold: Int
    /// How long a failure counts; an address without failures for this long is forgotten.
    public let window: Duration
    /// The most addresses tracked at once (at least 1).
    public let capacity: Int
    /// Delay of a `401` per failure beyond the threshold, at most ``maximumDelay``.
    public let delayStep: Duration
    /// The longest delay of a `401`.
    public let maximumDelay: Duration
    private let records = Mutex<[String: Record]>([:])
    private let clock: @Sendable () -> Int64

    /// Creates a tracker; `threshold` and `capacity` below 1 count as 1, and `clock` gives
    /// monotonic nanoseconds (tests move it).
    public init(threshold: Int = 5, window: Duration = .seconds(60), capacity: Int = 4096,
                delayStep: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(2),
                clock: @escaping @Sendable () -> Int64 = { cs_monotonic_ns() }) {
        self.threshold = max(1, threshold)
        self.window = window
        self.capacity = max(1, capacity)
        self.delayStep = delayStep
        self.maximumDelay = maximumDelay
        self.clock = clock
    }

    /// The address part of `host:port` or `[v6]:port` (the port changes with every connection).
    static func host(of remote: String?) -> String {
        remote.map(PeerAddress.host(of:)) ?? ""
    }

    /// Failures of `address` within the window.
    public func failures(of address: String) -> Int {
        let now = clock()
        return records.withLock { records in
            guard let record = records[address], now - record.last <= window.nanoseconds else { return 0 }
            return record.failures
        }
    }

    /// Whether `address` failed `threshold` times or more within the window.
    public func isSuspect(_ address: String) -> Bool { failures(of: address) >= threshold }

    /// Counts a failure; returns how long to hold back the `401` (zero below the threshold).
    @discardableResult
    public func recordFailure(of address: String) -> Duration {
        let now = clock()
        let window = self.window.nanoseconds
        let failures = records.withLock { records -> Int in
            if records[address] == nil, records.count >= capacity {
                records = records.filter { now - $0.value.last <= window }
                if records.count >= capacity { records.removeAll() }
            }
            var record = records[address] ?? Record(failures: 0, last: now)
            if now - record.last > window { record.failures = 0 }
            record.failures = min(record.failures + 1, 1 << 20)
            record.last = now
            records[address] = record
            return record.failures
        }
        guard failures >= threshold else { return .zero }
        let steps = min(failures - threshold + 1, 1000)
        return min(delayStep * steps, maximumDelay)
    }

    /// Forgets the failures of `address` (it just logged in).
    public func recordSuccess(of address: String) {
        _ = records.withLock { $0.removeValue(forKey: address) }
    }
}
