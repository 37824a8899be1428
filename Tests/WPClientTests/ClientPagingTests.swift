import WPHTTPClient
import Foundation
import Testing
import WPTestThreads
import WPClient
import WPLogging
import WPSimulator
import WPTestSupport

/// Paging: every page read, a lying total neither loses devices silently nor loops.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ClientPagingTests {
    @Test func readsAll250DevicesThroughAPageCapOf20() async throws {
        let harness = SimulatorHarness(devices: 250) // cap 20 by default
        let client = harness.makeClient()
        let readout = try await client.fetchDevices()
        #expect(readout.devices.count == 250)
        #expect(Set(readout.devices.map(\.id)).count == 250)
        #expect(readout.devices.map(\.id) == harness.simulator.devices.map(\.id))
        #expect(readout.pages == 13)
        #expect(readout.reportedTotal == 250)
        #expect(readout.isComplete)
        #expect(harness.simulator.counters.listCalls == 13)
        #expect(readout.calls.filter { $0.endpoint == .deviceList }.count == 13)
    }

    @Test func exactMultipleOfThePageSizeStopsWithoutAnEmptyPage() async throws {
        let harness = SimulatorHarness(devices: 40)
        let readout = try await harness.makeClient().fetchDevices()
        #expect(readout.devices.count == 40)
        #expect(harness.simulator.counters.listCalls == 2)
    }

    @Test func noDevices() async throws {
        let harness = SimulatorHarness(devices: 0)
        let readout = try await harness.makeClient().fetchDevices()
        #expect(readout.devices.isEmpty)
        #expect(readout.isComplete)
        #expect(harness.simulator.counters.listCalls == 1)
    }

    @Test func totalTooHighIsReportedIncompleteAndDoesNotLoop() async throws {
        let harness = SimulatorHarness(devices: 250)
        harness.simulator.setReportedTotal(300)
        let readout = try await harness.makeClient().fetchDevices()
        #expect(readout.devices.count == 250)
        #expect(!readout.isComplete)
        #expect(readout.reportedTotal == 300)
        #expect(harness.simulator.counters.listCalls == 13)
        #expect(harness.sink.records.contains { $0.message == "device list incomplete" && $0.level == .warn })
    }

    /// (A total that lands exactly on a full page, e.g. 20, is indistinguishable from the truth
    /// without an extra request per collection, so it is trusted.)
    @Test(arguments: [0, 10, 39])
    func totalTooLowStillReadsEveryDevice(total: Int) async throws {
        let harness = SimulatorHarness(devices: 250)
        harness.simulator.setReportedTotal(total)
        let readout = try await harness.makeClient().fetchDevices()
        #expect(readout.devices.count == 250)
        #expect(harness.simulator.counters.listCalls == 13)
    }

    @Test func serverRepeatingTheFirstPageStops() async throws {
        let harness = SimulatorHarness(devices: 250)
        let transport = RewritingTransport(
            base: InProcessTransport(handler: harness.simulator, clock: harness.clock),
            rewriteRequest: { request in
                var request = request
                var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
                let items = components?.queryItems?.map {
                    $0.name == "current" || $0.name == "pageNum" ? URLQueryItem(name: $0.name, value: "1") : $0
                }
                components?.queryItems = items
                request.url = components?.url ?? request.url
                return request
            })
        let readout = try await harness.makeClient(transport: transport).fetchDevices()
        #expect(readout.devices.count == 20)
        #expect(!readout.isComplete)
        #expect(harness.simulator.counters.listCalls == 2)
    }

    @Test func missingTotalReadsUntilAShortPage() async throws {
        let harness = SimulatorHarness(devices: 45)
        let transport = RewritingTransport(
            base: InProcessTransport(handler: harness.simulator, clock: harness.clock),
            rewriteResponse: { request, response in
                guard request.url.path.hasSuffix("/list") else { return response }
                var response = response
                let text = String(decoding: response.body, as: UTF8.self).replacingOccurrences(of: "\"total\":45,", with: "")
                response.body = Array(text.utf8)
                return response
            })
        let readout = try await harness.makeClient(transport: transport).fetchDevices()
        #expect(readout.devices.count == 45)
        #expect(harness.simulator.counters.listCalls == 3)
    }

    @Test func pageBoundStopsAHugeList() async throws {
        let harness = SimulatorHarness(devices: 250)
        let readout = try await harness.makeClient { $0.maxPages = 3 }.fetchDevices()
        #expect(readout.devices.count == 60)
        #expect(!readout.isComplete)
        #expect(harness.simulator.counters.listCalls == 3)
    }

    @Test func duplicatesAcrossPagesAreRemoved() async throws {
        let harness = SimulatorHarness(devices: 30)
        // The server shifts its list between page requests: page 2 starts 5 devices early.
        let transport = RewritingTransport(
            base: InProcessTransport(handler: harness.simulator, clock: harness.clock),
            rewriteRequest: { request in
                guard request.url.query?.contains("current=2") == true else { return request }
                var request = request
                request.url = URL(string: request.url.absoluteString
                    .replacingOccurrences(of: "current=2", with: "current=1")
                    .replacingOccurrences(of: "pageSize=100", with: "pageSize=15")) ?? request.url
                return request
            })
        let readout = try await harness.makeClient(transport: transport).fetchDevices()
        #expect(Set(readout.devices.map(\.id)).count == readout.devices.count)
    }
}
