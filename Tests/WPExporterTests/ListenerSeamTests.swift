import FoundationEssentials
import Synchronization
import Testing
import WPTestThreads
import WPCollector
import WPConfig
import WPNUT
import WPServer
@testable import WPExporter

/// A listener that binds nothing: it keeps what the exporter hands it, "listens" at once and
/// serves until its task is cancelled.
final class InProcessListener<Statistics: Sendable>: Listener {
    private let (stream, continuation) = AsyncStream<Void>.makeStream()
    private let stats: Statistics

    init(_ statistics: Statistics) { stats = statistics }

    func run() async throws { for await _ in stream {} }
    func waitUntilListening() async throws -> ServerAddress { ServerAddress(host: "in-process", port: 0) }
    var address: ServerAddress? { ServerAddress(host: "in-process", port: 0) }
    var connectionStatistics: ConnectionStatistics { ConnectionStatistics() }
    var statistics: Statistics { stats }
}

/// What the fake listeners were handed.
final class InProcessListeners: Sendable {
    private let handed = Mutex<(handler: (any HTTPHandler)?, nut: NUTProtocol?)>((nil, nil))

    var handler: (any HTTPHandler)? { handed.withLock { $0.handler } }
    var nut: NUTProtocol? { handed.withLock { $0.nut } }

    var listeners: Listeners {
        Listeners(http: { _, handler, _, _ in
            self.handed.withLock { $0.handler = handler }
            return InProcessListener(ConnectionStatistics())
        }, nut: { _, nutProtocol, _ in
            self.handed.withLock { $0.nut = nutProtocol }
            return InProcessListener(LineServerStatistics())
        })
    }
}

/// The exporter takes its listeners through `Options.listeners`: a test (or an embedder) serves
/// its endpoints and its NUT protocol without a socket.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ListenerSeamTests {
    @Test func theEndpointsAndNUTAreServedThroughFakeListeners() async throws {
        let fakes = InProcessListeners()
        let harness = try await ExporterHarness(devices: 2, configureExporter: { $0.nut.listen = "127.0.0.1:0" },
                                                listeners: fakes.listeners)
        await harness.exporter.collector.collect()

        let handler = try #require(fakes.handler)
        let metrics = try await handler.handle(WPHTTPRequest(method: "GET", target: "/metrics"))
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.wholeBody, as: UTF8.self)
        #expect(text.contains("winpower_exporter_up 1"), "\(text.prefix(400))")
        let missing = try await handler.handle(WPHTTPRequest(method: "GET", target: "/nothing-here"))
        #expect(missing.status == 404)

        let nut = try #require(fakes.nut)
        var session = nut.open(remote: "in-process:1")
        let reply = await nut.handle(Array("LIST UPS".utf8), session: &session)
        let lines = String(decoding: reply.bytes, as: UTF8.self)
        #expect(lines.hasPrefix("BEGIN LIST UPS\n"), "\(lines)")
        #expect(lines.components(separatedBy: "\nUPS ").count == 3, "two UPSs: \(lines)")
        nut.close(session)
        await harness.shutdown()
    }
}
