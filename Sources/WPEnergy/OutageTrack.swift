import FoundationEssentials
import WPStorage
import WPRuntime

/// The rules that keep one device's ``OutageLedger`` from its readings.
///
/// Fed once per reading (in ``EnergyIntegrator/integrate(_:at:wall:)``, so the ledger is saved
/// with the energy totals and never on its own):
/// - a connected reading in mode 4 (battery) while no outage is open opens one: a transfer, its
///   wall-clock start kept; later mode-4 readings add the monotonic time since the previous
///   mode-4 reading to the time on battery, unless that interval exceeds `energy.max_gap`
///   (then it is a gap, not bridged);
/// - the two transition intervals are split at their midpoint (the best estimate of when mains
///   failed or came back, which no reading tells): half of the interval from the last reading
///   on line to the first on battery, and half of the interval from the last reading on battery
///   to the first back on line, are time on battery, each only when both of its readings are
///   connected readings of this process in a known mode within `max_gap`. Their discharge is
///   that half interval times the power of the on-battery reading. The opening half is added at
///   the device's next reading, so the time on battery is exported at 0 at the first transfer
///   and `increase()` loses nothing (a restart before that next reading loses at most that half
///   interval);
/// - a connected reading in another known mode closes the open outage. Its end is *observed*
///   when the previous reading of the device, in this process and within `max_gap`, was on
///   battery: end time, duration (monotonic when the outage began in this process, else from
///   the stored wall-clock start) and runtime are recorded and the duration is observed in the
///   histogram. Otherwise (the outage ended while the exporter was down, or the device was
///   unreadable or out of reach for longer than `max_gap`) the end is unknown: end, duration and
///   runtime are cleared, and the histogram is not touched;
/// - a disconnected reading or an unknown mode code changes nothing but breaks the chain: an
///   open outage stays open (and stays one outage);
/// - mode 5 (battery test) is never an outage: its first reading counts a self-test; the raw
///   `testStatus` of the test's readings and of the first reading after it is kept.
struct OutageTrack<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    var ledger: OutageLedger
    /// The previous reading was on battery, at this instant (this process only), with its
    /// usable power, if any.
    private var lastBattery: Instant?
    private var lastBatteryWatts: Double?
    /// The previous reading was connected in a known mode other than battery, at this instant
    /// (this process only).
    private var lastLine: Instant?
    /// The opening transition's half interval (seconds, joules), added at the next reading.
    private var pendingOpening: (seconds: Double, joules: Double)?
    /// When the open outage began, if it began in this process.
    private var startInstant: Instant?

    init(ledger: OutageLedger = OutageLedger()) {
        self.ledger = ledger
    }

    /// What one reading did to the ledger.
    struct Step {
        /// An on-battery interval longer than the max gap was skipped.
        var gap = false
        /// The previous and this reading were both on battery within the max gap: the energy
        /// integrated over that interval is discharge.
        var bridged = false
    }

    /// Applies one reading taken at `instant` / `wall`.
    ///
    /// - Parameters:
    ///   - mode: the raw mode code, `nil` when disconnected or missing.
    ///   - watts: the reading's usable power, `nil` when absent or implausible.
    ///   - runtime: the battery runtime reported (seconds), if any.
    ///   - testStatus: the raw `testStatus`, if any.
    ///   - maxGap: the longest interval bridged.
    mutating func observe(mode: Int?, watts: Double?, runtime: Double?, testStatus: Int?, at instant: Instant,
                          wall: Date?, maxGap: Duration) -> Step {
        var step = Step()
        if let pending = pendingOpening {
            addOnBattery(seconds: pending.seconds, joules: pending.joules)
            pendingOpening = nil
        }
        guard let mode, (0...6).contains(mode) else {
            lastBattery = nil
            lastLine = nil
            return step
        }
        observeTest(mode: mode, testStatus: testStatus, wall: wall)
        guard mode == 4 else {
            if ledger.inOutage { close(at: instant, wall: wall, maxGap: maxGap) }
            lastBattery = nil
            lastLine = instant
            return step
        }
        if !ledger.inOutage {
            ledger.inOutage = true
            ledger.transfers = StoredDeviceEnergy.incremented(ledger.transfers)
            ledger.lastStart = wall
            ledger.openRuntime = nil
            startInstant = instant
            if let half = Self.halfTransition(from: lastLine, to: instant, maxGap: maxGap) {
                pendingOpening = (half, half * (watts ?? 0))
            }
        } else if let last = lastBattery {
            let elapsed = last.duration(to: instant)
            if elapsed > maxGap {
                step.gap = true
            } else if elapsed > .zero {
                addOnBattery(seconds: elapsed.inSeconds, joules: 0)
                step.bridged = true
            }
        }
        if let runtime, runtime.isFinite { ledger.openRuntime = runtime }
        lastBattery = instant
        lastBatteryWatts = watts
        lastLine = nil
        return step
    }

    /// Half the interval between two readings either side of a transition, in seconds, when
    /// the earlier one exists and the interval is positive and no longer than `maxGap`.
    private static func halfTransition(from earlier: Instant?, to later: Instant, maxGap: Duration) -> Double? {
        guard let earlier else { return nil }
        let elapsed = earlier.duration(to: later)
        guard elapsed > .zero, elapsed <= maxGap else { return nil }
        return elapsed.inSeconds / 2
    }

    /// Adds time and energy on battery, keeping totals finite (the energy of an interval on
    /// battery at both ends comes later, through ``addDischarge(_:)``: it is the energy chain's).
    private mutating func addOnBattery(seconds: Double, joules: Double) {
        let total = ledger.onBatterySeconds + seconds
        if seconds > 0, total.isFinite { ledger.onBatterySeconds = total }
        addDischarge(joules)
    }

    /// Adds energy delivered over a bridged on-battery interval.
    mutating func addDischarge(_ joules: Double) {
        let total = ledger.dischargeJoules + joules
        if joules > 0, total.isFinite { ledger.dischargeJoules = total }
    }

    private mutating func close(at instant: Instant, wall: Date?, maxGap: Duration) {
        let observed = lastBattery.map { $0.duration(to: instant) <= maxGap } ?? false
        if let half = Self.halfTransition(from: lastBattery, to: instant, maxGap: maxGap) {
            addOnBattery(seconds: half, joules: half * (lastBatteryWatts ?? 0))
        }
        var duration: Double?
        if observed {
            if let startInstant {
                duration = startInstant.duration(to: instant).inSeconds
            } else if let start = ledger.lastStart, let wall {
                duration = max(0, wall.timeIntervalSince(start))
            }
        }
        ledger.lastEnd = observed ? wall : nil
        ledger.lastDuration = duration
        ledger.lastRuntime = observed ? ledger.openRuntime : nil
        if let duration { ledger.observe(duration: duration) }
        ledger.inOutage = false
        ledger.openRuntime = nil
        startInstant = nil
    }

    private mutating func observeTest(mode: Int, testStatus: Int?, wall: Date?) {
        if mode == 5 {
            if !ledger.inTest {
                ledger.inTest = true
                ledger.tests = StoredDeviceEnergy.incremented(ledger.tests)
                ledger.lastTest = wall
            }
            if let testStatus { ledger.lastTestStatus = testStatus }
        } else if ledger.inTest {
            ledger.inTest = false
            if let testStatus { ledger.lastTestStatus = testStatus }
        }
    }
}
