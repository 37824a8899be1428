public import FoundationEssentials
public import WPEnergy

/// A device's battery self-tests as its outage ledger keeps them (saved with the energy totals,
/// so they survive restarts): what the SNMP agent's UPS-MIB test group serves.
public struct SelfTestRecord: Sendable, Equatable {
    /// Self-tests seen starting (transfers to mode 5).
    public var count: Int
    /// Wall-clock start of the last (or current) self-test; `nil` when it is unknown.
    public var lastStart: Date?
    /// WinPower's raw `testStatus` code at the end of the last self-test (or during it).
    public var lastStatus: Int?
    /// A self-test is in progress.
    public var inProgress: Bool

    /// Creates a record from its values.
    public init(count: Int, lastStart: Date?, lastStatus: Int?, inProgress: Bool) {
        self.count = count
        self.lastStart = lastStart
        self.lastStatus = lastStatus
        self.inProgress = inProgress
    }

    /// The ledger's self-tests; `nil` for a device whose ledger never saw one.
    public init?(_ ledger: OutageLedger) {
        guard ledger.tests > 0 || ledger.inTest else { return nil }
        self.init(count: ledger.tests, lastStart: ledger.lastTest, lastStatus: ledger.lastTestStatus, inProgress: ledger.inTest)
    }
}
