public import FoundationEssentials
public import WPClient

/// What the last collections found, for `/health` and readiness.
///
/// A value type copied out of the collector: reading it never waits on WinPower.
public struct CollectorHealth: Sendable, Equatable {
    /// When the latest collection started (wall clock), `nil` before the first; it may still be
    /// running (see ``inProgress``).
    public var lastAttempt: Date?
    /// When the last collection finished, successful or not (wall clock), `nil` before the first.
    public var lastFinished: Date?
    /// Whether a collection is running now.
    public var inProgress: Bool
    /// When the last successful collection finished (wall clock), `nil` if none succeeded yet.
    public var lastSuccess: Date?
    /// The last finished collection's error as `kind: message`, or `nil` when it succeeded.
    /// Built from `WPClient/ClientError` messages, which never hold secrets.
    public var lastError: String?
    /// Whether the last collection got an HTTP response from WinPower.
    public var winPowerReachable: Bool
    /// Whether the exporter holds a token WinPower accepted that has not expired.
    public var authenticated: Bool
    /// Devices with live series: seen in a successful readout within the staleness window.
    public var deviceCount: Int
    /// Power readings refused as implausible since start (all devices), not integrated.
    public var energySamplesRejected: Int = 0
    /// Devices left out of the readouts since start, by reason: a bound of the client
    /// (`WPClient/DeviceListBound`, `max_devices`, `max_pages`) or `invalid` (a device object
    /// without a usable id); `winpower_exporter_devices_dropped_total`.
    public var devicesDropped: [String: Int] = [:]
    /// Device text fields cut to the byte bound since start;
    /// `winpower_exporter_device_texts_truncated_total`.
    public var textsTruncated = 0
    /// Why the last successful readout missed devices (a bound reached, or the server's total
    /// and its pages disagree); `nil` when it was complete.
    public var deviceListIncomplete: String?
    /// Devices with an outage in progress (on battery, mode 4), sorted by device id.
    public var outages: [DeviceOutage] = []
    /// Live devices with active alarms and what the alarms say, sorted by device id.
    public var alarms: [DeviceAlarms] = []

    /// The active alarms of one device, as WinPower describes them.
    public struct DeviceAlarms: Sendable, Equatable {
        /// The device's id (`device_id`).
        public var deviceID: String
        /// The device's alias (`device_name`), empty when it has none.
        public var deviceName: String
        /// At most `WPClient/DeviceListDecoder/alarmDetailLimit` entries, in the order sent.
        public var alarms: [Alarm]

        /// Creates the alarms of one device.
        public init(deviceID: String, deviceName: String, alarms: [Alarm]) {
            self.deviceID = deviceID
            self.deviceName = deviceName
            self.alarms = alarms
        }
    }

    /// A device's outage in progress.
    public struct DeviceOutage: Sendable, Equatable {
        /// The device's key (as its energy totals are keyed).
        public var deviceID: String
        /// When the outage began (wall clock), `nil` when unknown.
        public var since: Date?

        /// Creates the outage of the device `deviceID` that began at `since` (`nil`: unknown).
        public init(deviceID: String, since: Date?) {
            self.deviceID = deviceID
            self.since = since
        }
    }

    /// Creates a health value; the defaults describe a collector that has not run yet.
    public init(lastAttempt: Date? = nil, lastFinished: Date? = nil, inProgress: Bool = false,
                lastSuccess: Date? = nil, lastError: String? = nil,
                winPowerReachable: Bool = false, authenticated: Bool = false, deviceCount: Int = 0) {
        self.lastAttempt = lastAttempt
        self.lastFinished = lastFinished
        self.inProgress = inProgress
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.winPowerReachable = winPowerReachable
        self.authenticated = authenticated
        self.deviceCount = deviceCount
    }

    /// Whether the last finished collection succeeded; `false` before the first finished.
    /// A collection in progress does not change it.
    public var lastCollectionSucceeded: Bool {
        lastFinished != nil && lastSuccess != nil && lastError == nil
    }

    /// Whether the last finished collection succeeded and the last success is at most
    /// `stalenessWindow` old.
    ///
    /// - Parameters:
    ///   - sinceLastSuccess: the age of the last successful readout on the monotonic clock
    ///   (``WinPowerCollector/timeSinceLastSuccess()``), `nil` before the first; never the wall clock,
    ///   which may be stepped.
    ///   - stalenessWindow: how old the last success may be.
    /// - Returns: `true` when the exporter serves fresh data.
    public func isHealthy(sinceLastSuccess: Duration?, stalenessWindow: Duration) -> Bool {
        guard lastCollectionSucceeded, let sinceLastSuccess else { return false }
        return sinceLastSuccess <= stalenessWindow
    }
}
