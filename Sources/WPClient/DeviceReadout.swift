public import FoundationEssentials
import WPRuntime

/// The result of one successful ``WinPowerClient/fetchDevices()``: every device plus what the
/// exporter reports about the connection.
public struct DeviceReadout: Sendable, Equatable {
    /// Every device read, de-duplicated by ``Device/id``, in the order the server listed them.
    public var devices: [Device]
    /// Device objects the server sent that could not be used (and why).
    public var dropped: [DroppedDevice]
    /// The `total` the server reported on the last page read.
    public var reportedTotal: Int
    /// Pages requested in this readout.
    public var pages: Int
    /// `false` when the server's `total` and the devices actually listed disagree, or the
    /// page bound was reached: some devices may be missing (a warning is logged too).
    public var isComplete: Bool
    /// Why the readout is incomplete, in a few words; empty when ``isComplete``.
    public var incompleteReason: String = ""
    /// Devices the client's bounds left out, by bound (see ``DeviceListBound``); empty when none.
    public var devicesDropped: [DeviceListBound: Int] = [:]
    /// Text fields of the devices cut to `DeviceListDecoder/maxTextBytes`.
    public var textsTruncated = 0
    /// Every API request made for this readout (a login included), for a latency histogram.
    public var calls: [APICall]
    /// When the cached token expires (wall clock), or `nil` when not logged in.
    public var tokenExpiry: Date?
    /// When the last successful login happened (wall clock), or `nil` if never.
    public var lastLogin: Date?

    /// Creates a readout; by default a complete one of one page, with no call recorded and no
    /// login.
    public init(devices: [Device], dropped: [DroppedDevice] = [], reportedTotal: Int, pages: Int = 1,
                isComplete: Bool = true, calls: [APICall] = [], tokenExpiry: Date? = nil, lastLogin: Date? = nil) {
        self.devices = devices
        self.dropped = dropped
        self.reportedTotal = reportedTotal
        self.pages = pages
        self.isComplete = isComplete
        self.calls = calls
        self.tokenExpiry = tokenExpiry
        self.lastLogin = lastLogin
    }
}

/// A bound of the client on what one WinPower server can make it hold
/// (``WinPowerHTTPClient/Configuration``); its raw value is the `reason` label of
/// `winpower_exporter_devices_dropped_total`.
public enum DeviceListBound: String, Sendable, Equatable, CaseIterable {
    /// `winpower.max_devices`: devices listed past the bound, skipped undecoded, plus the rest
    /// of the server's reported total.
    case maxDevices = "max_devices"
    /// `winpower.max_pages`: devices the server reported that no page was read for.
    case maxPages = "max_pages"
}

/// One request to the WinPower API and how long it took.
public struct APICall: Sendable, Equatable {
    /// Which API was called.
    public enum Endpoint: String, Sendable, Equatable, CaseIterable {
        /// `login`: `POST /api/v1/auth/login`.
        case login
        /// `device_list`: `GET /api/v1/deviceData/detail/list`, one page of the device list.
        case deviceList = "device_list"
    }

    /// Which API was called.
    public var endpoint: Endpoint
    /// Time from sending the request to having the whole response (or the failure).
    public var duration: Duration
    /// The HTTP status, or `nil` when no response arrived.
    public var status: Int?

    /// Creates the record of a call to `endpoint` that took `duration` and got `status`.
    public init(endpoint: Endpoint, duration: Duration, status: Int?) {
        self.endpoint = endpoint
        self.duration = duration
        self.status = status
    }

    /// ``duration`` in seconds, as a Prometheus histogram wants it.
    public var seconds: Double { duration.inSeconds }
}

/// A device object in the list that could not be used.
public struct DroppedDevice: Sendable, Equatable, CustomStringConvertible {
    /// 1-based page the object was on.
    public var page: Int
    /// 0-based position of the object within its page's `data` array.
    public var index: Int
    /// The device id, when it could be read.
    public var id: String?
    /// What was wrong, e.g. `assetDevice.id missing`.
    public var reason: String

    /// Creates the record of the object at `index` on `page` that could not be used.
    public init(page: Int, index: Int, id: String? = nil, reason: String) {
        self.page = page
        self.index = index
        self.id = id
        self.reason = reason
    }

    /// `device <index> on page <page> (id <id>): <reason>`, without the id when it is unknown.
    public var description: String {
        "device \(index) on page \(page)\(id.map { " (id \($0))" } ?? ""): \(reason)"
    }
}
