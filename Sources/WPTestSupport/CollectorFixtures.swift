package import WPStorage
package import Foundation
package import WPClient
package import WPCollector
package import WPEnergy
import WPLogging
import WPRuntime
import WPWallClock

/// A collector wired to a fake client, an in-memory energy store and a manual clock.
///
/// The wall clock is ``epoch`` plus the manual clock's offset, so every timestamp in a
/// snapshot is a function of how far the test advanced the clock.
package struct CollectorFixture: Sendable {
    package let clock: ManualClock
    package let store: InMemoryEnergyStore
    package let meter: EnergyMeter<ManualClock>
    package let collector: WinPowerCollector<ManualClock>
    package let sink: InMemoryLogSink
    package let epoch: Date

    /// - Parameters:
    ///   - client: where the collector reads devices (a ``ClientStub`` or a simulator client).
    ///   - clock: the manual clock shared with the client, if it has one.
    ///   - store: the energy store (its initial state is the "stored total").
    ///   - configuration: the collector configuration (default interval 5 s, window 15 s).
    ///   - epoch: the wall-clock time at clock offset 0.
    package init(client: any WinPowerClient, clock: ManualClock = ManualClock(),
                store: InMemoryEnergyStore = InMemoryEnergyStore(),
                configuration: CollectorConfiguration = CollectorConfiguration(target: "http://winpower.test:8081"),
                epoch: Date = Date(timeIntervalSince1970: 1_760_365_813)) throws {
        let sink = InMemoryLogSink()
        let logger = WPLogger(label: "collector", level: .debug, sink: sink)
        self.clock = clock
        self.store = store
        self.sink = sink
        self.epoch = epoch
        meter = try EnergyMeter.open(store: store, clock: clock, logger: logger)
        let wallClock = WallClock.following(clock, from: epoch)
        // The served energy is the saved one: a loaded machine's scheduling must not decide a
        // test (the in-memory store's saves end at once, or fail at once).
        var configuration = configuration
        configuration.saveWait = .seconds(60)
        collector = WinPowerCollector(configuration: configuration, client: client, meter: meter, clock: clock,
                              wallClock: wallClock, logger: logger)
    }

    /// The current wall-clock time of the fixture.
    package var now: Date {
        let (seconds, atto) = clock.now.offset.components
        return epoch.addingTimeInterval(Double(seconds) + Double(atto) / 1e18)
    }

    /// The latest snapshot's text body, parsed.
    package func exposition() throws -> CollectorExposition {
        try CollectorExposition(text: collector.snapshot.text)
    }
}

extension DeviceReadout {
    /// The fixed readout behind the golden expositions and the metric tables in the docs:
    /// one UPS on mains, one on battery with an alarm, one with a fault and missing readings,
    /// and one WinPower cannot reach (every reading missing).
    package static func collectorGolden() -> DeviceReadout {
        var normal = Device.make(id: "0b0c4d6e-0001-4b35-b0dd-000000000001", alias: "C3K", watts: 195)
        normal.setting.autoTestPeriod = 30
        var battery = Device.make(id: "0b0c4d6e-0002-4b35-b0dd-000000000002", alias: "Server room \"A\"",
                                  watts: 412.5, mode: 4, status: 2, alarmCodes: ["0x0011"])
        battery.realtime.inputVolt1 = 0
        battery.realtime.inputFreq = 0
        battery.realtime.isCharging = 0
        battery.realtime.batRemainTime = 1800
        var fault = Device.make(id: "0b0c4d6e-0003-4b35-b0dd-000000000003", alias: "Rack\\B-2", watts: 1030,
                                mode: 3, status: 2, faultCode: "0B", alarmCodes: ["0x0107"])
        fault.realtime.upsTemperature = nil
        fault.realtime.testStatus = nil
        fault.asset.firmwareVersion = nil
        var offline = Device.make(id: "0b0c4d6e-0004-4b35-b0dd-000000000004", alias: nil, connected: false,
                                  watts: nil, mode: nil, status: nil)
        offline.realtime = RealtimeReadings()
        offline.activeAlarms = nil
        return .make(devices: [normal, battery, fault, offline],
                     calls: [APICall(endpoint: .login, duration: .milliseconds(40), status: 200),
                             APICall(endpoint: .deviceList, duration: .milliseconds(12), status: 200)])
    }
}
