/// The result of a battery self-test, from WinPower's `testStatus` code, read as the HID power
/// device class numbers its test results (the meaning WinPower's USB drivers take them from; over
/// REST they are unverified, docs/battery.md). NUT's `ups.test.result`, SNMP's
/// `upsTestResultsSummary` (whose numbering is the same) and the status pages each name it in
/// their words.
package enum SelfTestResult: Int, Sendable, CaseIterable {
    case passed = 1
    case warning = 2
    case error = 3
    case aborted = 4
    case inProgress = 5
    case noneInitiated = 6

    /// The result `testStatus` codes; `nil` for another code or none (kept raw where shown).
    package init?(testStatus code: Int?) {
        guard let code, let result = SelfTestResult(rawValue: code) else { return nil }
        self = result
    }
}
