#if os(Linux)
import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import WPExporterTesting
import WPLogging
import WPScheduler
import WPServer
import WPServiceLifecycle

/// A WPHTTPServer and a TickScheduler in one ServiceGroup, stopped by a real SIGTERM sent to this
/// process. The group's signal handling is registered before it starts any service, so once the
/// server listens the signal cannot kill the test process. The only suite that raises a signal.
@Suite(.timeLimit(.minutes(3))) struct GracefulShutdownTests {
    @Test func sigtermDrainsTheRequestAndTheRunInFlight() async throws {
        let sink = RecordingSink()
        let log = WPLogger(label: "test", level: .debug, sink: sink)

        // A request that is in flight when the signal arrives and answers only afterwards.
        let entered = Gate()
        let release = Gate()
        var router = WPRouter()
        router.get("/slow") { _ in
            entered.open()
            await release.wait()
            return .text("finished\n")
        }
        let server = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: router, logger: log)

        // A run in progress when the scheduler is told to stop; it waits for that moment and
        // then finishes, which it may (its shutdown timeout is far away).
        let events = Mutex<[String]>([])
        let runStarted = Gate()
        let scheduler = TickScheduler(configuration: .init(interval: .seconds(3600), gracefulShutdownTimeout: .seconds(120),
                                                       workName: "job"),
                                  clock: ContinuousClock(), logger: log) { tick in
            events.withLock { $0.append("run \(tick.index) started") }
            runStarted.open()
            do {
                try await gracefulShutdown()
                events.withLock { $0.append(Task.isCancelled ? "run cancelled" : "run finished after shutdown began") }
            } catch {
                events.withLock { $0.append("run cancelled before shutdown") }
            }
        }

        let group = ServiceGroup(configuration: .init(
            services: [HTTPServerService(server), SchedulerService(scheduler)],
            gracefulShutdownSignals: [.sigterm],
            logger: Logger(label: "group", factory: { _ in SwiftLogNoOpLogHandler() })))
        let running = Task { try await group.run() }
        defer { running.cancel() }

        let address = try await within(.seconds(60), "the server to listen") { try await server.waitUntilListening() }
        try await within(.seconds(60), "the first run") { await runStarted.wait() }
        let url = "http://127.0.0.1:\(address.port)/slow"
        let response = Task { try await LoopbackClient(timeout: .seconds(120)).send(url: url) }
        try await within(.seconds(60), "the request to reach its handler") { await entered.wait() }

        #expect(kill(getpid(), SIGTERM) == 0)

        // Services stop in reverse order: the scheduler first, then the server drains.
        let draining = try await within(.seconds(60), "the server to drain") {
            await sink.wait(for: "http server draining")
        }
        #expect(draining.fields["in_flight"] == .int(1))
        #expect(events.withLock { $0 } == ["run 0 started", "run finished after shutdown began"])
        await #expect(throws: LoopbackClientError.self, "the listener is closed once draining begins") {
            _ = try await LoopbackClient().send(url: url)
        }

        release.open()
        let answer = try await within(.seconds(60), "the request in flight to be answered") { try await response.value }
        #expect(answer.status == 200)
        #expect(answer.text == "finished\n")

        try await within(.seconds(60), "the group to return") { try await running.value }
        #expect(scheduler.statistics.started == 1)
        #expect(scheduler.statistics.completed == 1)
        #expect(scheduler.statistics.abandoned == 0)
        _ = try await within(.seconds(60), "the server's stop line") { await sink.wait(for: "http server stopped") }
    }
}
#endif
