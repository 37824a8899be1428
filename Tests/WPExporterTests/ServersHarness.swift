import Foundation
import Synchronization
import Testing
import WPClient
import WPConfig
import WPLogging
import WPServer
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPWallClock

/// A multi-server exporter over fake clients and a manual clock, in process, without a
/// socket: requests go straight to its handler.
final class ServersHarness: Sendable {
    let clock: ManualClock
    let epoch = Date(timeIntervalSince1970: 1_760_365_813)
    let exporter: Exporter<ManualClock>
    let logs: InMemoryLogSink
    let dataDirectory: String
    let handler: any HTTPHandler

    /// - Parameters:
    ///   - servers: each entry's name and client, in file order.
    ///   - dataDirectory: the energy state directory (a fresh one by default).
    ///   - clock: shared clock (pass the previous harness's to restart "later").
    ///   - security: the web configuration's wrapper.
    ///   - reload: what a configuration reload loads.
    ///   - clientFactory: the clients of servers a reload adds or changes.
    ///   - configure: changes to the configuration (entries included) after they are built.
    init(servers: [(name: String, client: any WinPowerClient)], dataDirectory: String? = nil,
         clock: ManualClock = ManualClock(), security: WebSecurity = .none,
         configure: (inout ExporterConfiguration) -> Void = { _ in },
         reload: ConfigReloader.Load? = nil, clientFactory: ClientFactory? = nil) throws {
        self.clock = clock
        let directory = dataDirectory ?? temporaryPathRemovedAtExit("wpexporter-servers")
        self.dataDirectory = directory
        var configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:1", username: "admin",
                                                          password: "s3cr3t-Pa55", dataDirectory: directory)
        configuration.scheduler.gracefulShutdownTimeout = .seconds(1)
        configuration.servers = servers.enumerated().map { index, server in
            var winPower = configuration.winPower
            winPower.baseURL = "http://127.0.0.\(index + 2):8081"
            return ServerEntry(name: server.name, winPower: winPower, labels: [.init(name: "site", value: "site-\(index % 2)")])
        }
        configure(&configuration)
        let logs = InMemoryLogSink()
        self.logs = logs
        let logger = WPLogger(label: "test", level: .debug, sink: logs, redactor: Redactor(secrets: ["s3cr3t-Pa55"]))
        let (epoch, wall) = (epoch, clock)
        exporter = try Exporter(configuration: configuration, clients: servers.map(\.client), clock: clock,
                                wallClock: .following(wall, from: epoch),
                                logger: logger, reload: reload, clientFactory: clientFactory,
                                // Every publish merges at once: these tests read /metrics right
                                // after the collections they drive (ExpositionMergerTests covers
                                // the one-merge-per-second cap).
                                mergeSpacing: .zero)
        handler = exporter.endpoints.makeHandler(security: security)
    }

    /// GET `target` with a `Host` header (and `headers`).
    func get(_ target: String, headers: [String: String] = [:]) async throws -> (status: Int, text: String, response: WPHTTPResponse) {
        var request = WPHTTPRequest(method: "GET", target: target)
        request.headers.set(name: "Host", value: "exporter.test:9102")
        for (name, value) in headers { request.headers.set(name: name, value: value) }
        let response = try await handler.handle(request)
        return (response.status, String(decoding: response.wholeBody, as: UTF8.self), response)
    }

    /// `/metrics` as `series → value`.
    func scrape() async throws -> [String: Double] {
        Exposition.samples(try await get("/metrics").text)
    }

    /// Suspends until `condition` holds, looking again every 2 ms; records an issue after two
    /// minutes of wall time (a safety net for a loaded machine, not a timing assertion)
    /// instead of hanging the suite.
    func until(_ what: String, _ condition: () -> Bool) async {
        await Self.until(what, condition)
    }

    /// Suspends until `condition` holds, looking again every 2 ms (a pause, not a busy
    /// yield, so the tasks it waits for get the cores); records an issue after two minutes.
    static func until(_ what: String, _ condition: () -> Bool) async {
        let deadline = ContinuousClock.now.advanced(by: .seconds(120))
        while !condition() {
            if ContinuousClock.now > deadline {
                Issue.record("still waiting for \(what)")
                return
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// A WinPower that accepts the request and does not answer until ``release()``; then every
/// call fails at once as a timeout. No clock is involved, so a test counts only its
/// schedulers' sleepers.
final class HangingClient: WinPowerClient {
    private struct State {
        var calls = 0
        var released = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    var calls: Int { state.withLock { $0.calls } }

    /// Lets every held call (and every later one) fail as a timeout.
    func release() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func fetchDevices() async throws -> DeviceReadout {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                state.calls += 1
                if state.released { return true }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        throw ClientError(.timeout, "WinPower did not answer within winpower.timeout")
    }
}
