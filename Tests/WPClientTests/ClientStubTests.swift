import Testing
import WPTestThreads
import WPClient
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ClientStubTests {
    @Test func answersInOrderThenRepeatsTheLast() async throws {
        let stub = ClientStub([.success(.make(devices: [.make(id: "a")])), .failure(ClientError(.network, "down"))])
        #expect(try await stub.fetchDevices().devices.map(\.id) == ["a"])
        #expect(await clientError { try await stub.fetchDevices() }?.kind == .network)
        #expect(await clientError { try await stub.fetchDevices() }?.kind == .network)
        stub.enqueue(.success(.make(devices: [])))
        #expect(try await stub.fetchDevices().devices.isEmpty)
        #expect(stub.calls == 4)
    }

    @Test func factoriesMatchTheCapturedSample() {
        let device = Device.make()
        #expect(device.realtime.loadTotalWatt == 195)
        #expect(device.isOnBattery == false)
        #expect(Device.make(watts: nil).realtime.loadTotalWatt == nil)
        #expect(Device.make(mode: 4).isOnBattery == true)
        #expect(DeviceReadout.make().reportedTotal == 1)
    }
}
