import Foundation
import Testing
import WPConfig
import WPLogging
import WPTestThreads
@testable import WPExporter

/// The options an embedder writes most: on the continuous clock, with nothing but a logger.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct ExporterOptionsTests {
    @Test func optionsOnTheContinuousClockNeedNoClock() async throws {
        var options = Exporter<ContinuousClock>.Options(logger: .disabled)
        #expect(options.mergeSpacing == .seconds(1))
        #expect(options.makeClient == nil, "real WinPower clients")
        options.energyStorage = .memory
        var configuration = ExporterConfiguration()
        configuration.winPower.baseURL = "http://127.0.0.1:9"
        configuration.winPower.username = "admin"
        configuration.winPower.password = Secret("pw")
        let exporter = try Exporter(configuration: configuration, options: options)
        #expect(exporter.configuration.winPower.baseURL == "http://127.0.0.1:9")
        await exporter.close()
    }
}
