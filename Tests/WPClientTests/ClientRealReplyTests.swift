import WPHTTPClient
import Foundation
import Synchronization
import Testing
import WPTestThreads
@testable import WPClient
import WPSimulator
import WPTestSupport

/// Replies exactly as real WinPower servers send them: the real 401 body at HTTP 401 and at
/// HTTP 200, `data` of any type in an envelope, unknown codes.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ClientRealReplyTests {
    static let list = #"{"total":1,"pageSize":20,"currentPage":1,"data":[{"assetDevice":{"id":"d1"},"realtime":{"mode":"3"}}],"#
        + #""code":"000000","msg":"OK"}"#

    /// A server that answers the first device-list request with the real 401 body at `status`,
    /// then the list; counting logins.
    static func rejectingOnce(status: Int, onLogin: @escaping @Sendable () -> Void) throws -> StubTransport {
        let unauthorized = try DecoderSampleTests.fixture("unauthorized-response")
        let lists = Mutex(0)
        return StubTransport { request in
            if request.url.path.hasSuffix("/login") {
                onLogin()
                return TransportResponse(status: 200, body: Array(#"{"code":"000000","message":"OK","data":{"token":"t"}}"#.utf8))
            }
            let first = lists.withLock { count in
                count += 1
                return count == 1
            }
            return first ? TransportResponse(status: status, body: unauthorized) : TransportResponse(status: 200, body: Array(list.utf8))
        }
    }

    @Test(arguments: [401, 200])
    func realUnauthorizedBodyLeadsToOneReloginAndOneRetry(status: Int) async throws {
        let logins = Mutex(0)
        let harness = SimulatorHarness()
        let client = harness.makeClient(transport: try Self.rejectingOnce(status: status) { logins.withLock { $0 += 1 } })
        let readout = try await client.fetchDevices()
        #expect(readout.devices.map(\.id) == ["d1"])
        #expect(logins.withLock { $0 } == 2)
        #expect(readout.calls.map(\.endpoint) == [.login, .deviceList, .login, .deviceList])
        #expect(readout.calls.map(\.status) == [200, status, 200, 200])
    }

    @Test(arguments: [#""a string""#, #"{"nested":{"data":[1,"x",null]}}"#, "null", "[]", "17", "true"])
    func dataOfAnyTypeNeverFailsTheDecode(data: String) throws {
        let decoder = DeviceListDecoder()
        let envelope = #"{"code":"000000","msg":"OK","data":\#(data)}"#
        #expect(try decoder.decodeDeviceList(Array(envelope.utf8)).isSuccess)
        #expect(try decoder.decodeLogin(Array(envelope.utf8)).code == "000000")
        let device = #"{"total":1,"data":[{"assetDevice":{"id":"d","data":\#(data)},"data":\#(data),"#
            + #""realtime":{"mode":"5","data":\#(data)},"activeAlarms":[{"alarmCode":"501","data":\#(data)}]}],"#
            + #""code":"000000","msg":"OK","extra":{"data":\#(data)}}"#
        let page = try decoder.decodeDeviceList(Array(device.utf8))
        #expect(page.devices.first?.operatingMode == .batteryTest)
        #expect(page.devices.first?.activeAlarms?.codes == ["501"])
    }

    @Test func unknownCodeIsAnErrorWithItsCodeNeverTheBody() async throws {
        let harness = SimulatorHarness()
        let body = #"{"code":"E_SOMETHING_NEW","message":"try later","data":"internal detail 7c1e9d4a-body-only"}"#
        let client = harness.makeClient(transport: StubTransport.loggingIn(token: "t", list: body))
        let error = try #require(await clientError { try await client.fetchDevices() })
        #expect(error.kind == .apiCode)
        #expect(error.message.contains("E_SOMETHING_NEW"))
        #expect(!error.message.contains("internal detail") && !error.message.contains("body-only"))
        #expect(!"\(error)".contains("body-only"))
    }
}
