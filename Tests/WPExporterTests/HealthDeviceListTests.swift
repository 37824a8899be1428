import Foundation
import Testing
import WPTestThreads
import WPCollector
import WPServer
@testable import WPExporter

/// `/health` shows what the client's bounds left out, for one server and per server.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HealthDeviceListTests {
    static func bounded(_ now: Date) -> CollectorHealth {
        var health = CollectorHealth(lastFinished: now, lastSuccess: now, winPowerReachable: true, authenticated: true,
                                     deviceCount: 10_000)
        health.devicesDropped = ["max_devices": 90_000]
        health.textsTruncated = 3
        health.deviceListIncomplete = "kept the first 10000 devices (the device bound); 90000 more listed or reported"
        return health
    }

    @Test func aSingleServerShowsTheDropsTheCutsAndWhy() throws {
        let now = Date()
        let response = try EndpointTests.endpoints(health: Self.bounded(now), now: now).healthResponse()
        #expect(response.status == 200, "the kept devices are fresh: still healthy")
        let report = try JSONDecoder().decode(HealthReport.self, from: Data(response.body))
        let list = try #require(report.deviceList)
        #expect(!list.complete)
        #expect(list.devicesDropped == ["max_devices": 90_000])
        #expect(list.textsTruncated == 3)
        #expect(list.incompleteReason?.hasPrefix("kept the first 10000 devices") == true)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains(#""devices_dropped":{"max_devices":90000}"#))
        #expect(text.contains(#""texts_truncated":3"#))
    }

    @Test func aCompleteListSaysSoWithoutAReason() throws {
        let now = Date()
        let health = CollectorHealth(lastFinished: now, lastSuccess: now, winPowerReachable: true, authenticated: true)
        let response = try EndpointTests.endpoints(health: health, now: now).healthResponse()
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains(#""device_list":{"complete":true,"devices_dropped":{},"texts_truncated":0}"#))
    }

    @Test func eachServerReportsItsOwnBounds() throws {
        let now = Date()
        let bounded = Self.bounded(now)
        let plain = CollectorHealth(lastFinished: now, lastSuccess: now, winPowerReachable: true, authenticated: true)
        let views = [("a", bounded), ("b", plain)].map { name, health in
            ServerView(name: name, labels: [SeriesLabel(name: "server", value: name)], target: "http://\(name).test",
                       snapshot: { .empty }, health: { health }, sinceLastSuccess: { .zero }, stalenessWindow: .seconds(15))
        }
        let response = try EndpointTests.endpoints(now: now).serversHealthResponse(views)
        #expect(response.status == 200)
        let report = try JSONDecoder().decode(ServersHealthReport.self, from: Data(response.body))
        #expect(report.servers.map(\.deviceList.complete) == [false, true])
        #expect(report.servers[0].deviceList.devicesDropped == ["max_devices": 90_000])
        #expect(report.servers[1].deviceList.devicesDropped.isEmpty)
    }
}
