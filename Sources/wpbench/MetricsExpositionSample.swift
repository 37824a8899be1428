import Foundation
import WPMetrics
import WPPushgateway
import WPRuntime
import WPTestSupport

/// `wpbench --child exposition-sample FORMAT` prints a registry covering every metric type,
/// escaping case and special value (text or openmetrics), for IntegrationTests/tests_01_exposition/test_03_reference_tools.sh.
/// `... push URL JOB` and `... delete URL JOB` round-trip it through a real Pushgateway.
enum MetricsExpositionSample {
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            let registry = try MetricsFixtures.everyTypeRegistry(clock: ManualClock())
            switch arguments.first {
            case "text", "openmetrics":
                let format: ExpositionFormat = arguments.first == "text" ? .text : .openMetrics
                FileHandle.standardOutput.write(Data(registry.render(format: format)))
                return 0
            case "push", "delete":
                guard arguments.count == 3, let url = URL(string: arguments[1]) else { return usage() }
                let client = try PushgatewayClient(
                    configuration: .init(url: url, job: arguments[2], grouping: ["instance": "check/exposition"],
                                         timeout: .seconds(5)))
                if arguments[0] == "push" { try await client.push(registry) } else { try await client.delete() }
                print("\(arguments[0]) \(client.url.absoluteString): ok")
                return 0
            default:
                return usage()
            }
        } catch {
            FileHandle.standardError.write(Data("exposition-sample: \(error)\n".utf8))
            return 1
        }
    }

    private static func usage() -> Int32 {
        FileHandle.standardError.write(Data("usage: wpbench --child exposition-sample text|openmetrics | push URL JOB | delete URL JOB\n".utf8))
        return 64
    }
}
