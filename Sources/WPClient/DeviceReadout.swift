import FoundationEssentials
import WPRuntime

/// The result of one successful ``WinPowerClient/fetchDevices()``: every device plus what the
/// exporter reports about the connection.
package struct DeviceReadout: Sendable, Equatable {
    /// Every device read, de-duplicated by ``Device/id``, in the order the server listed them.
    package var devices: [Device]
    /// Device objects the server sent that could not be used (and why).
    package var dropped: [DroppedDevice]
    /// The `total` the server reported on the last page read.
    package var reportedTotal: Int
    /// Pages requested in this readout.
    package var pages: Int
    /// `false` when the server's `total` and the devices actually listed disagree, or the
    /// page bound was reached: some devices may be missing (a warning is logged too).
    package var isComplete: Bool
    /// Why the readout is incomplete, in a few words; empty when ``isComplete``.
    package var incompleteReason: String = ""
    /// Devices the client's bounds left out, by bound (see ``DeviceListBound``); empty when none.
    package var devicesDropped: [DeviceListBound: Int] = [:]
    /// Text fields of the devices cut to ``DeviceListDecoder/maxTextBytes``.
    package var textsTruncated = 0
    /// Every API request made for this readout (a login included), for a latency histogram.
    package var calls: [APICall]
    /// When the cached token expires (wall clock), or `nil` when not logged in.
    package var tokenExpiry: Date?
    /// When the last successful login happened (wall clock), or `nil` if never.
    package var lastLogin: Date?

    package init(devices: [Device], dropped: [DroppedDevice] = [], reportedTotal: Int, pages: Int = 1,
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
package enum DeviceListBound: String, Sendable, Equatable, CaseIterable {
    /// `winpower.max_devices`: devices listed past the bound, skipped undecoded, plus the rest
    /// of the server's reported total.
    case maxDevices = "max_devices"
    /// `winpower.max_pages`: devices the server reported that no page was read for.
    case maxPages = "max_pages"
}

/// One request to the WinPower API and how long it took.
package struct APICall: Sendable, Equatable {
    /// Which API was called.
    package enum Endpoint: String, Sendable, Equatable, CaseIterable {
        case login
        case deviceList = "device_list"
    }

    package var endpoint: Endpoint
    /// Time from sending the request to having the whole response (or the failure).
    package var duration: Duration
    /// The HTTP status, or `nil` when no response arrived.
    package var status: Int?

    package init(endpoint: Endpoint, duration: Duration, status: Int?) {
        self.endpoint = endpoint
        self.duration = duration
        self.status = status
    }

    /// ``duration`` in seconds, as a Prometheus histogram wants it.
    package var seconds: Double { duration.inSeconds }
}

/// A device object in the list that could not be used.
package struct DroppedDevice: Sendable, Equatable, CustomStringConvertible {
    /// 1-based page the object was on.
    package var page: Int
    /// 0-based position of the object within its page's `data` array.
    package var index: Int
    /// The device id, when it could be read.
    package var id: String?
    /// What was wrong, e.g. `assetDevice.id missing`.
    package var reason: String

    package init(page: Int, index: Int, id: String? = nil, reason: String) {
        self.page = page
        self.index = index
        self.id = id
        self.reason = reason
    }

    package var description: String {
        "device \(index) on page \(page)\(id.map { " (id \($0))" } ?? ""): \(reason)"
    }
}
