import FoundationEssentials
import WPEnergy

/// A device's battery self-tests as its outage ledger keeps them (saved with the energy totals,
/// so they survive restarts): what the SNMP agent's UPS-MIB test group serves.
package struct SelfTestRecord: Sendable, Equatable {
    /// Self-tests seen starting (transfers to mode 5).
    package var count: Int
    /// Wall-clock start of the last (or current) self-test; `nil` when it is unknown.
    package var lastStart: Date?
    /// WinPower's raw `testStatus` code at the end of the last self-test (or during it).
    package var lastStatus: Int?
    /// A self-test is in progress.
    package var inProgress: Bool

    package init(count: Int, lastStart: Date?, lastStatus: Int?, inProgress: Bool) {
        self.count = count
        self.lastStart = lastStart
        self.lastStatus = lastStatus
        self.inProgress = inProgress
    }

    /// The ledger's self-tests; `nil` for a device whose ledger never saw one.
    package init?(_ ledger: OutageLedger) {
        guard ledger.tests > 0 || ledger.inTest else { return nil }
        self.init(count: ledger.tests, lastStart: ledger.lastTest, lastStatus: ledger.lastTestStatus, inProgress: ledger.inTest)
    }
}
