import WPRuntime
package import Foundation
package import WPClient
import WPLogging
package import WPSimulator
package import WPWallClock

/// A simulator, a manual clock and a log sink wired together, making clients that talk to the
/// simulator in process.
///
/// ```swift
/// let harness = SimulatorHarness(devices: 250)
/// let client = harness.makeClient()
/// let readout = try await client.fetchDevices()
/// #expect(harness.simulator.counters.logins == 1)
/// ```
package struct SimulatorHarness: Sendable {
    package let clock: ManualClock
    package let simulator: WinPowerSimulator
    /// Receives the logs of clients made by ``makeClient(transport:configure:)``, at debug level.
    package let sink: InMemoryLogSink
    /// Wall-clock time at the clock's origin, shared by simulator and clients.
    package let epoch: Date

    /// - Parameters:
    ///   - devices: simulated device count.
    ///   - configure: further changes to the simulator's configuration.
    package init(devices: Int = 3, configure: (inout WinPowerSimulator.Configuration) -> Void = { _ in }) {
        let clock = ManualClock()
        let epoch = Date(timeIntervalSince1970: 1_760_365_813)
        var configuration = WinPowerSimulator.Configuration()
        configuration.deviceCount = devices
        configuration.username = "admin"
        configuration.password = "s3cr3t-Pa55"
        configuration.epoch = epoch
        configure(&configuration)
        self.clock = clock
        self.epoch = epoch
        self.simulator = WinPowerSimulator(configuration: configuration, clock: clock)
        self.sink = InMemoryLogSink()
    }

    /// Wall-clock time following the manual clock.
    package var wallClock: WallClock { WallClock.following(clock, from: epoch) }

    /// The client configuration matching the simulator's credentials.
    package var clientConfiguration: WinPowerHTTPClient.Configuration {
        WinPowerHTTPClient.Configuration(
            baseURL: URL(string: "http://winpower.test:8081\(simulator.configuration.pathPrefix)") ?? URL(fileURLWithPath: "/"),
            username: simulator.configuration.username, password: simulator.configuration.password)
    }

    /// A client talking to the simulator through an ``InProcessTransport`` (or `transport`).
    package func makeClient(transport: (any HTTPTransport)? = nil,
                           configure: (inout WinPowerHTTPClient.Configuration) -> Void = { _ in }) -> WinPowerHTTPClient {
        var configuration = clientConfiguration
        configure(&configuration)
        return WinPowerHTTPClient(configuration: configuration,
                                  transport: transport ?? InProcessTransport(handler: simulator, clock: clock),
                                  clock: clock, wallClock: wallClock, logger: sink.logger(label: "client", level: .debug))
    }
}
