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
