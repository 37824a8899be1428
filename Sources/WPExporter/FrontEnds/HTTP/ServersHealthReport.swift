import FoundationEssentials
package import WPCollector
import WPFrontEnd
package import WPServer
import WPWallClock

/// The JSON body of `/health` for a multi-server exporter: the whole, then each server.
///
/// `status` is `healthy` when every server's last finished collection succeeded within its
/// staleness window, `degraded` when some did, `unhealthy` when none did or when the energy
/// totals cannot be saved (``StorageHealth``); `/health` answers 503 only for `unhealthy` (the
/// exporter serves nothing fresh, or loses energy at its next stop), 200 otherwise.
package struct ServersHealthReport: Codable, Sendable, Equatable {
    package struct Server: Codable, Sendable, Equatable {
        var name: String
        var status: String
        var lastCollection: HealthReport.LastCollection
        var winPower: HealthReport.WinPower
        var deviceCount: Int
        /// What this server's bounds left out.
        var deviceList: HealthReport.DeviceList
        /// This server's devices on battery now, with the outage's start.
        var outages: [HealthReport.Outage] = []
        /// This server's devices with active alarms.
        var alarms: [HealthReport.DeviceAlarms] = []
        enum CodingKeys: String, CodingKey {
            case name, status, outages, alarms
            case lastCollection = "last_collection"
            case winPower = "winpower"
            case deviceCount = "device_count"
            case deviceList = "device_list"
        }
    }
    package var status: String
    package var version: String
    package var uptimeSeconds: Double
    package var servers: [Server]
    package var deviceCount: Int
    /// Implausible power readings refused since start, all servers.
    package var energySamplesRejected: Int
    /// The last configuration reload.
    package var configReload: HealthReport.ConfigReload?
    // The front ends' sections (`nut`, `snmp`) are written beside these fields
    // (`HealthDocument`).
    /// The energy store: data directory and whether saving works.
    package var storage: StorageHealth?
    package enum CodingKeys: String, CodingKey {
        case status, version, servers, storage
        case uptimeSeconds = "uptime_seconds"
        case deviceCount = "device_count"
        case energySamplesRejected = "energy_samples_rejected"
        case configReload = "config_reload"
    }
}

extension HealthReport.LastCollection {
    package init(_ health: CollectorHealth) {
        self.init(time: health.lastFinished.map(Endpoints.iso), success: health.lastCollectionSucceeded,
                  lastSuccess: health.lastSuccess.map(Endpoints.iso), error: health.lastError,
                  inProgress: health.inProgress)
    }
}

extension HealthReport.WinPower {
    package init(target: String, health: CollectorHealth) {
        self.init(target: target, reachable: health.winPowerReachable, authenticated: health.authenticated)
    }
}

extension Endpoints {
    /// The multi-server `/health` document (see ``ServersHealthReport`` for the status rule).
    package func serversHealthResponse(_ servers: [ServerView]) -> WPHTTPResponse {
        let now = wallClock.now
        var rejected = 0
        let entries = servers.map { server -> ServersHealthReport.Server in
            let health = server.health()
            rejected = max(rejected, health.energySamplesRejected)
            let healthy = health.isHealthy(sinceLastSuccess: server.sinceLastSuccess(), stalenessWindow: server.stalenessWindow)
            return .init(name: server.name, status: healthy ? "healthy" : "unhealthy", lastCollection: .init(health),
                         winPower: .init(target: server.target, health: health), deviceCount: health.deviceCount,
                         deviceList: .init(health),
                         outages: health.outages.map { .init(deviceID: $0.deviceID, since: $0.since.map(Endpoints.iso)) },
                         alarms: health.alarms.map(HealthReport.DeviceAlarms.init))
        }
        let healthy = entries.filter { $0.status == "healthy" }.count
        let storage = self.storage?()
        let status = storage?.lastSaveSuccessful == false ? "unhealthy"
            : healthy == entries.count ? "healthy" : healthy == 0 ? "unhealthy" : "degraded"
        let report = ServersHealthReport(status: status, version: version, uptimeSeconds: uptime(now), servers: entries,
                                         deviceCount: entries.reduce(0) { $0 + $1.deviceCount },
                                         energySamplesRejected: rejected,
                                         configReload: reloader.map { HealthReport.ConfigReload($0.status) },
                                         storage: storage)
        return Self.json(HealthDocument(report: report, sections: frontEnds().compactMap(\.health)),
                         status: status == "unhealthy" ? 503 : 200)
    }
}
