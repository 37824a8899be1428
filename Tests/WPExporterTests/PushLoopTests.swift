import Foundation
import Testing
import WPTestThreads
import WPConfig
import WPLogging
import WPMetrics
import WPPushgateway
import WPRuntime
import WPTestSupport
@testable import WPExporter

private func loadBody(_ watts: Double = 230) -> [UInt8] {
    do {
        var family = try MetricFamily(name: "winpower_device_load_total_watts", help: "Active power.", type: .gauge,
                                      labelNames: ["device_id"])
        try family.append(labelValues: ["ups-1"], value: watts)
        return ExpositionEncoder(format: .text).encode([family])
    } catch {
        Issue.record("fixture family: \(error)")
        return []
    }
}

private func makeClient(_ gateway: FakePushgateway, password: String? = nil) throws -> PushgatewayClient {
    let configuration = PushgatewayClient.Configuration(
        url: try #require(URL(string: "http://gateway.test:9091")), job: "wpexporter", maxAttempts: 1,
        username: password == nil ? nil : "pusher", password: password)
    return try PushgatewayClient(configuration: configuration, transport: gateway)
}

@Suite("PushLoop", .ownThreads, .timeLimit(.minutes(3)))
struct PushLoopTests {
    @Test("pushes at once, then once per interval, replacing the group; stops on cancellation")
    func pushesAtFixedRate() async throws {
        let gateway = FakePushgateway()
        let clock = ManualClock()
        let loop = PushLoop(client: try makeClient(gateway), interval: .seconds(15), clock: clock,
                            logger: .disabled) { loadBody() }
        let task = Task { await loop.run() }
        await clock.waitForSleepers(1)
        #expect(gateway.requests.count == 1)
        clock.advance(by: .seconds(14))
        #expect(gateway.requests.count == 1)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(15))
        await clock.waitForSleepers(1)
        let requests = gateway.requests
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { $0.method == "PUT" && $0.url.path == "/metrics/job/wpexporter" })
        let body = String(decoding: try #require(requests.last).body, as: UTF8.self)
        #expect(body.contains("winpower_device_load_total_watts{device_id=\"ups-1\"} 230"))
        #expect(loop.status == PushLoop<ManualClock>.Status(pushes: 3))
        task.cancel()
        await task.value
        #expect(gateway.requests.count == 3)
    }

    @Test("nothing collected yet: the tick is skipped, nothing is pushed")
    func emptySourceSkips() async throws {
        let gateway = FakePushgateway()
        let loop = PushLoop(client: try makeClient(gateway), interval: .seconds(1), clock: ManualClock(),
                            logger: .disabled) { [] }
        await loop.pushOnce()
        #expect(gateway.requests.isEmpty)
        #expect(loop.status.emptyTicks == 1)
    }

    @Test("a failure streak is logged once, its end once; the password never appears")
    func failuresLoggedOncePerStreak() async throws {
        let gateway = FakePushgateway(script: [.status(500, "gateway broke"), .failure("connection refused"), .status(200, "")])
        let sink = InMemoryLogSink()
        let password = "pw-9f3c1e"
        let loop = PushLoop(client: try makeClient(gateway, password: password), interval: .seconds(1),
                            clock: ManualClock(), logger: sink.logger()) { loadBody() }
        await loop.pushOnce()
        await loop.pushOnce()
        #expect(loop.status.failures == 2)
        #expect(loop.status.lastError?.contains("connection refused") == true)
        await loop.pushOnce()
        #expect(loop.status == PushLoop<ManualClock>.Status(pushes: 1, failures: 2))
        let messages = sink.records.map(\.message)
        #expect(messages.filter { $0.hasPrefix("push to the Pushgateway failed") }.count == 1)
        #expect(messages.filter { $0 == "pushing to the Pushgateway works again" }.count == 1)
        #expect(sink.allText.contains("HTTP 500"))
        #expect(!sink.allText.contains(password))
        #expect(gateway.requests.first?.headers["Authorization"]?.hasPrefix("Basic ") == true)
    }

    @Test("a push slower than the interval skips the missed ticks instead of catching up")
    func nextDueSkipsMissedTicks() {
        typealias Instant = ManualClock.Instant
        let start = Instant(offset: .zero)
        #expect(PushLoop<ManualClock>.nextDue(after: start, now: Instant(offset: .seconds(2)), interval: .seconds(15))
                == Instant(offset: .seconds(15)))
        #expect(PushLoop<ManualClock>.nextDue(after: start, now: Instant(offset: .seconds(40)), interval: .seconds(15))
                == Instant(offset: .seconds(45)))
        #expect(PushLoop<ManualClock>.nextDue(after: start, now: Instant(offset: .seconds(15)), interval: .seconds(15))
                == Instant(offset: .seconds(15)))
    }

    @Test("push.* maps onto the client; no push.url means no client; credentials in the URL are refused")
    func clientFromConfiguration() throws {
        var push = ExporterConfiguration.Push()
        #expect(try PushgatewayClient.exporterClient(push) == nil)
        push.url = "http://gateway.test:9091/prefix"
        push.job = "ups"
        push.username = "pusher"
        push.password = Secret("pw-1")
        let client = try #require(try PushgatewayClient.exporterClient(push, grouping: ["instance": "host-a"]))
        #expect(client.url.absoluteString == "http://gateway.test:9091/prefix/metrics/job/ups/instance/host-a")
        #expect(client.configuration.password == "pw-1")
        push.url = "http://user:pw@gateway.test:9091"
        #expect(throws: PushError.self) { try PushgatewayClient.exporterClient(push) }
    }
}
