import WPHTTPClient
import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPClient
import WPLogging
import WPSimulator
import WPTestSupport

/// The bounds on what one server can make the client hold: devices whatever the page size the
/// server reports, pages, and the bytes of each device text. Reading past a bound drops the
/// excess devices, never the whole readout.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ClientBoundsTests {
    @Test func aHugePageIsCutAtTheDeviceBoundNotDecodedWhole() async throws {
        // The server answers one page of 300 whatever the request: the `pageSize: 34000` case.
        let harness = SimulatorHarness(devices: 300) { $0.pageSizeCap = 10_000 }
        let client = harness.makeClient {
            $0.pageSize = 10_000
            $0.maxDevices = 50
        }
        let readout = try await client.fetchDevices()
        #expect(readout.devices.map(\.id) == harness.simulator.devices.prefix(50).map(\.id))
        #expect(!readout.isComplete)
        #expect(readout.devicesDropped == [.maxDevices: 250])
        #expect(readout.incompleteReason.contains("50 devices"))
        #expect(harness.simulator.counters.listCalls == 1)
    }

    @Test func moreDevicesThanTheBoundAtTwentyPerPage() async throws {
        let harness = SimulatorHarness(devices: 130)
        let readout = try await harness.makeClient { $0.maxDevices = 50 }.fetchDevices()
        #expect(readout.devices.map(\.id) == harness.simulator.devices.prefix(50).map(\.id))
        // Page 3 brings 10 kept and 10 skipped; 70 more were reported and never requested.
        #expect(readout.devicesDropped == [.maxDevices: 80])
        #expect(harness.simulator.counters.listCalls == 3)
    }

    @Test func theBoundReachedAtAPageEndIsConfirmedByOneMorePage() async throws {
        let harness = SimulatorHarness(devices: 60)
        let readout = try await harness.makeClient { $0.maxDevices = 40 }.fetchDevices()
        #expect(readout.devices.count == 40)
        #expect(readout.devicesDropped == [.maxDevices: 20])
        #expect(harness.simulator.counters.listCalls == 3)
    }

    @Test(arguments: [40, 41])
    func aServerWithinTheBoundIsComplete(bound: Int) async throws {
        let harness = SimulatorHarness(devices: 40)
        let readout = try await harness.makeClient { $0.maxDevices = bound }.fetchDevices()
        #expect(readout.devices.count == 40)
        #expect(readout.isComplete)
        #expect(readout.devicesDropped.isEmpty)
        #expect(readout.incompleteReason.isEmpty)
        #expect(harness.simulator.counters.listCalls == 2)
    }

    @Test func thePageBoundCountsTheReportedDevicesItLeavesOut() async throws {
        let harness = SimulatorHarness(devices: 130)
        let readout = try await harness.makeClient { $0.maxPages = 2 }.fetchDevices()
        #expect(readout.devices.count == 40)
        #expect(!readout.isComplete)
        #expect(readout.devicesDropped == [.maxPages: 90])
        #expect(readout.incompleteReason.contains("page bound"))
    }

    @Test func theIncompleteListIsLoggedWhenItStartsNotAtEveryCollection() async throws {
        let harness = SimulatorHarness(devices: 60)
        let client = harness.makeClient { $0.maxDevices = 40 }
        for _ in 0..<3 { _ = try await client.fetchDevices() }
        let warnings = harness.sink.records.filter { $0.message == "device list incomplete" }
        #expect(warnings.count == 1)
        #expect(warnings.first?.level == .warn)
    }

    @Test func theDefaultsReachTenThousandDevicesAtTwentyPerPage() async throws {
        let defaults = WinPowerHTTPClient.Configuration(baseURL: URL(string: "http://127.0.0.1")!, username: "", password: "")
        #expect(defaults.maxDevices >= 10_000)
        #expect(defaults.maxPages * 20 >= defaults.maxDevices)
        // A server of 10,000 bare devices that answers 20 per page whatever is asked, like
        // WinPower: the simulator's full readings would cost minutes under a sanitizer.
        let pages = Mutex<[Int]>([])
        let server = StubTransport.loggingIn(token: "t").answeringLists { page in
            pages.withLock { $0.append(page) }
            let ids = (page - 1) * 20..<min(page * 20, 10_000)
            let data = ids.map { #"{"assetDevice":{"id":"d\#($0)"}}"# }.joined(separator: ",")
            return #"{"total":10000,"pageSize":20,"currentPage":\#(page),"data":[\#(data)],"code":"000000","msg":"OK"}"#
        }
        let harness = SimulatorHarness(devices: 0)
        let readout = try await harness.makeClient(transport: server).fetchDevices()
        #expect(readout.devices.count == 10_000)
        #expect(Set(readout.devices.map(\.id)).count == 10_000)
        #expect(readout.isComplete)
        #expect(readout.devicesDropped.isEmpty)
        #expect(pages.withLock { $0 } == Array(1...500))
    }

    @Test func aTenMegabyteAliasIsCutAtTheByteBound() async throws {
        let harness = SimulatorHarness(devices: 3)
        // "€" is 3 UTF-8 bytes: 256 is not a multiple, so the cut must back up to a character.
        let alias = String(repeating: "€", count: 10_000_000 / 3)
        let transport = RewritingTransport(
            base: InProcessTransport(handler: harness.simulator, clock: harness.clock),
            rewriteResponse: { request, response in
                guard request.url.path.hasSuffix("/list") else { return response }
                var response = response
                response.body = Self.replacingFirstAlias(in: response.body, with: alias)
                return response
            })
        let readout = try await harness.makeClient(transport: transport).fetchDevices()
        #expect(readout.devices.count == 3)
        let cut = try #require(readout.devices[0].asset.alias)
        #expect(cut.utf8.count == 255)
        #expect(cut == String(repeating: "€", count: 85))
        #expect(readout.devices[0].textsTruncated == 1)
        #expect(readout.textsTruncated == 1)
        #expect(readout.devices[1].asset.alias == harness.simulator.devices[1].alias)
        #expect(readout.isComplete)
    }

    @Test func theTextBoundIsConfigurableAndHasAFloor() {
        let body = Array(#"{"code":"000000","total":1,"data":[{"assetDevice":{"id":"d1","alias":"\#(String(repeating: "a", count: 300))","model":"\#(String(repeating: "é", count: 40))"}}]}"#.utf8)
        let page = try? DeviceListDecoder(maxTextBytes: 100).decodeDeviceList(body)
        #expect(page?.devices.first?.asset.alias == String(repeating: "a", count: 100))
        // 40 × 2 bytes = 80 bytes fit in 100.
        #expect(page?.devices.first?.asset.model == String(repeating: "é", count: 40))
        #expect(page?.devices.first?.textsTruncated == 1)
        #expect(DeviceListDecoder(maxTextBytes: 1).maxTextBytes == DeviceListDecoder.leastMaxTextBytes)
    }

    @Test func alarmTextsAndTheFaultCodeAreBoundedToo() throws {
        let long = String(repeating: "x", count: 5_000)
        let body = Array(#"{"code":"000000","total":1,"data":[{"assetDevice":{"id":"d1"},"realtime":{"faultCode":"\#(long)"},"activeAlarms":["\#(long)",{"alarmCode":"\#(long)","alarmName":"short"}]}]}"#.utf8)
        let device = try #require(try DeviceListDecoder(maxTextBytes: 64).decodeDeviceList(body).devices.first)
        #expect(device.realtime.faultCode?.utf8.count == 64)
        #expect(device.activeAlarms?.codes.map(\.utf8.count) == [64, 64])
        #expect(device.activeAlarms?.alarms.last?.name == "short")
        #expect(device.textsTruncated == 5)
    }

    @Test func aDeviceIdOverTheBoundDropsThatDeviceOnly() throws {
        let body = Array(#"{"code":"000000","total":2,"data":[{"assetDevice":{"id":"\#(String(repeating: "i", count: 65))"}},{"assetDevice":{"id":"d2"}}]}"#.utf8)
        let page = try DeviceListDecoder(maxTextBytes: 64).decodeDeviceList(body)
        #expect(page.devices.map(\.id) == ["d2"])
        #expect(page.dropped.map(\.reason) == ["assetDevice.id longer than 64 bytes"])
    }

    @Test func millionsOfInvalidEntriesOrAlarmCodesAreNotAllKept() throws {
        let junk = Array(repeating: "1", count: 200_000).joined(separator: ",")
        let body = Array(#"{"code":"000000","total":1,"data":[\#(junk),{"assetDevice":{"id":"d1"},"activeAlarms":[\#(junk)]}]}"#.utf8)
        let page = try DeviceListDecoder().decodeDeviceList(body, keepAtMost: 1_000)
        #expect(page.dropped.count == 1_000)
        #expect(page.skipped == 199_001)
        #expect(page.entryCount == 200_001)
        let alarms = try #require(try DeviceListDecoder().decodeDeviceList(
            Array(#"{"code":"000000","data":[{"assetDevice":{"id":"d1"},"activeAlarms":[\#(junk)]}]}"#.utf8)).devices.first?.activeAlarms)
        #expect(alarms.count == 200_000)
        #expect(alarms.codes.count == DeviceListDecoder.alarmCodeLimit)
    }

    @Test(arguments: [("abc", 3, nil), ("abcd", 3, "abc"), ("a€", 3, "a"), ("a€", 4, nil), ("€€", 5, "€"), ("x", 0, "")])
    func truncationKeepsWholeCharacters(text: String, limit: Int, expected: String?) {
        #expect(DeviceListDecoder.truncated(text, toBytes: limit) == expected)
    }

    /// `body` with the value of its first `"alias"` member replaced by `alias` (plain text).
    static func replacingFirstAlias(in body: [UInt8], with alias: String) -> [UInt8] {
        let key = Array(#""alias":""#.utf8)
        guard let start = (0...(body.count - key.count)).first(where: { body[$0..<$0 + key.count].elementsEqual(key) })
        else { return body }
        var end = start + key.count
        while end < body.count, body[end] != UInt8(ascii: "\"") { end += body[end] == UInt8(ascii: "\\") ? 2 : 1 }
        return Array(body[..<(start + key.count)]) + Array(alias.utf8) + Array(body[end...])
    }
}
