// The exporter inside a service, as docs/embedding-exporter.md writes it: built from a configuration
// made in code, run until the process is stopped. Written against the API every measured
// revision shares.
import WPConfig
import WPExporter
import WPLogging

var configuration = ExporterConfiguration()
configuration.storage.dataDirectory = CommandLine.arguments.dropFirst().first ?? "/tmp/winpower-service"
configuration.winPower.baseURL = "http://127.0.0.1:8081"
configuration.winPower.username = "admin"
configuration.winPower.password = Secret("secret")
configuration.server.port = 0

let logger = WPLogger(label: "service", sink: StreamSink.standardError(encoder: JSONLogEncoder()))
let exporter = try Exporter(configuration: configuration, logger: logger.child(label: "winpower"))
try await exporter.run(onListening: { address in logger.info("listening", ["port": .int(address.port)]) },
                       until: { try? await Task.sleep(for: .seconds(365 * 86_400)) })
