public import WPConfig
public import WPHistory

extension ExporterConfiguration {
    /// `history.*`, the section the history writer declares (`HistorySettings`): read and set as
    /// the exporter's own sections are (`configuration.history.enabled = false`).
    public var history: HistorySettings {
        get { self[section: HistorySettings.self] }
        set { self[section: HistorySettings.self] = newValue }
    }
}
