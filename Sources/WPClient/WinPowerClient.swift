/// Reads every UPS a WinPower G2 server manages.
///
/// The one seam between the collector and WinPower. Implementations handle login, token
/// lifetime, paging and parsing, and return either a complete ``DeviceReadout`` or a
/// ``ClientError`` whose ``ClientError/kind`` is stable enough to label a metric.
///
/// Contract: `fetchDevices()` may be called concurrently from several tasks; implementations
/// share one login between concurrent callers and never hold a lock across a network call.
///
/// ```swift
/// let client = WinPowerHTTPClient(configuration: .init(baseURL: url, username: "admin", password: pw),
///                                 logger: logger)
/// let readout = try await client.fetchDevices()
/// for device in readout.devices { print(device.id, device.realtime.loadTotalWatt ?? .nan) }
/// ```
public protocol WinPowerClient: Sendable {
    /// Fetches every page of the device list, logging in first when needed.
    ///
    /// - Returns: every device read, plus facts about the connection.
    /// - Throws: ``ClientError``.
    func fetchDevices() async throws -> DeviceReadout
}

/// A client whose credentials can change while it runs (a configuration reload with a rotated
/// password), without a new client, connection pool or pipeline.
public protocol CredentialUpdating: Sendable {
    /// Uses `username` and `password` from the next login on: the current session token is
    /// dropped and any login backoff ends, so the next collection logs in with them at once.
    func updateCredentials(username: String, password: String) async
}
