/// The energy store in `/health`: the data directory and whether saving the totals works.
///
/// While the last save failed (the data directory deleted and not recreatable, read-only,
/// full, or locked by another process after its lock file was replaced), `/health` says
/// `unhealthy` and answers 503, naming the error here, until a save succeeds again.
package struct StorageHealth: Codable, Sendable, Equatable {
    /// `storage.data_dir`.
    package var dataDirectory: String
    /// Whether the last save succeeded (`true` before the first one).
    package var lastSaveSuccessful: Bool
    /// The last save's error while saving fails; absent otherwise.
    package var lastError: String?
    /// Failed saves since start (`winpower_exporter_energy_persist_failures_total`).
    package var saveFailures: Int

    package init(dataDirectory: String, lastError: String?, saveFailures: Int) {
        self.dataDirectory = dataDirectory
        self.lastSaveSuccessful = lastError == nil
        self.lastError = lastError
        self.saveFailures = saveFailures
    }

    enum CodingKeys: String, CodingKey {
        case dataDirectory = "data_dir"
        case lastSaveSuccessful = "last_save_successful"
        case lastError = "last_error"
        case saveFailures = "save_failures"
    }
}
