import Testing
import WPTestThreads
import WPConfig
import WPLogging
import WPServer
import WPFrontEnd
import WPNUTFrontEnd
import WPSNMPFrontEnd
@testable import WPExporter

/// The exporter fits its HTTP and NUT connection caps into the open-files limit, and refuses
/// to start when it is too low to serve.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DescriptorBudgetExporterTests {
    static func configuration(servers: Int, nut: Bool = false) -> ExporterConfiguration {
        var configuration = ExporterConfiguration()
        configuration.servers = (0..<servers).map { index in
            var winPower = ExporterConfiguration.WinPower()
            winPower.baseURL = "http://127.0.0.1:\(9 + index)"
            return ServerEntry(name: "s\(index)", winPower: winPower)
        }
        if nut { configuration.nut.listen = "127.0.0.1:0" }
        return configuration
    }

    static let factories: [FrontEndFactory<ContinuousClock>] = [.nut(makeListener: Listeners.sockets.nut), .snmp, .push]

    /// Ten servers at `ulimit -n 64` still leave room to serve (the process holds about 25).
    @Test func tenServersAtSixtyFourOpenFilesLeaveConnectionsToServe() throws {
        let budget = try #require(try Exporter<ContinuousClock>.descriptorBudget(Self.configuration(servers: 10), limit: 64,
                                                                                  factories: Self.factories, logger: .disabled))
        #expect(budget.reserved == 36)
        #expect(budget.httpConnections == 28)
        let withNUT = try #require(try Exporter<ContinuousClock>.descriptorBudget(Self.configuration(servers: 10, nut: true),
                                                                                   limit: 64, factories: Self.factories, logger: .disabled))
        #expect(withNUT.lineConnections == 7 && withNUT.httpConnections == 21)
        #expect(withNUT.grants == [7, nil, nil], "NUT asks, SNMP and push hold no client connections")
        #expect(try Exporter<ContinuousClock>.descriptorBudget(Self.configuration(servers: 10), limit: nil, factories: Self.factories,
                                                               logger: .disabled) == nil)
    }

    @Test func aLimitTooLowToServeStopsTheExporterBeforeItTakesTheDataDirectory() throws {
        #expect {
            try Exporter<ContinuousClock>.descriptorBudget(Self.configuration(servers: 1), limit: 20, factories: Self.factories, logger: .disabled)
        } throws: { error in
            guard case ExporterError.openFiles(let budget) = error else { return false }
            return budget.limit == 20 && "\(error)".contains("raise the limit")
        }
    }
}
