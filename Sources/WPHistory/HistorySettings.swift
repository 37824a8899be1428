public import WPConfig

/// `history.*`: each UPS's readings kept in `history.db` in the data directory, the section the
/// history writer declares (docs/storage.md).
public struct HistorySettings: ConfigSectionSettings {
    /// `history.enabled`.
    public var enabled = true
    /// `history.retention_days`: days the 5-minute slots are kept.
    public var retentionDays = 30
    /// `history.hourly_retention_days`.
    public var hourlyRetentionDays = 45
    /// `history.daily_retention_days`.
    public var dailyRetentionDays = 1_830

    /// Every key at its default (on; 30, 45 and 1,830 days).
    public init() {}

    /// The keys of `history.*`.
    public static let section = ConfigSection<HistorySettings>("history", [
        .boolean("enabled", \.enabled,
                 "Keep each UPS's readings in 5-minute, hourly and daily slots in `history.db` in the data directory (SQLite: the system's libsqlite3; docs/storage.md)."),
        .integer("retention_days", \.retentionDays, in: 1...3_650, "Days the 5-minute slots are kept."),
        .integer("hourly_retention_days", \.hourlyRetentionDays, in: 1...3_650, "Days the hourly slots are kept."),
        .integer("daily_retention_days", \.dailyRetentionDays, in: 1...36_500, "Days the daily slots are kept."),
    ])
}
