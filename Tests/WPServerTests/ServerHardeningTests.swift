import Synchronization
import Testing
import WPTestThreads
import WPLogging
import WPServer
import WPTestSupport

/// Records what a server reports, for the refusal counting.
final class EventRecorder: RequestObserver {
    private let events = Mutex<[RequestEvent]>([])
    func requestHandled(_ event: RequestEvent) { events.withLock { $0.append(event) } }
    var all: [RequestEvent] { events.withLock { $0 } }
}

/// The server's side of the hardening, over real sockets on ephemeral loopback ports.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct ServerHardeningTests {
    static let bodiless: WPRouter = {
        var router = WPRouter()
        router.get("/metrics", takesBody: false) { _ in .text("metrics\n") }
        return router
    }()

    @Test func bodyForABodilessRouteGets413BeforeItIsSent() async throws {
        let recorder = EventRecorder()
        try await withTestServer(Self.bodiless, configuration: configuration(), observer: recorder) { port in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            // Only the head is sent: the answer cannot have waited for the 1 MiB body.
            try await client.send("POST /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 413)
            #expect(await client.isClosedByServer())
        }
        #expect(recorder.all.map(\.handler) == ["refused"])
        #expect(recorder.all.map(\.status) == [413])
    }

    @Test func malformedAndOversizedRequestsAreReportedAsRefused() async throws {
        let recorder = EventRecorder()
        try await withTestServer(Self.bodiless, configuration: configuration { $0.maxHeaderBytes = 256 },
                                 observer: recorder) { port in
            for request in ["GET /metrics HTTP/1.1\r\nHost: t\r\nBad Header: x\r\n\r\n",
                            "GET /metrics HTTP/1.1\r\nHost: t\r\nX: " + String(repeating: "a", count: 300) + "\r\n\r\n"] {
                let client = try await TestHTTPClient.connect(port: port)
                try await client.send(request)
                _ = try await client.readResponse()
                client.close()
            }
        }
        #expect(recorder.all.map(\.status).sorted() == [400, 431])
        #expect(recorder.all.allSatisfy { $0.handler == "refused" })
    }

    @Test func globalBodyBudgetRefusesNewBodiesWith503() async throws {
        let recorder = EventRecorder()
        let settings = configuration { $0.maxBufferedBodyBytes = 100 }
        try await withTestServer(EchoHandler(), configuration: settings, observer: recorder) { port in
            let first = try await TestHTTPClient.connect(port: port)
            defer { first.close() }
            try await first.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 80\r\n\r\nabc")
            // The first body holds 80 of the 100 bytes; a second one of 80 has no room.
            // (A request on the first connection proves its head was read before the second.)
            let second = try await TestHTTPClient.connect(port: port)
            defer { second.close() }
            let probe = try await TestHTTPClient.connect(port: port)
            try await probe.send(get("/probe"))
            #expect(try await probe.readResponse().status == 200)
            probe.close()
            try await second.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 80\r\n\r\n")
            #expect(try await second.readResponse().status == 503)
            // The first completes normally.
            try await first.send(String(repeating: "x", count: 77))
            let done = try await first.readResponse()
            #expect(done.status == 200)
            #expect(done.body.count == "POST /echo ".count + 80)
        }
        #expect(recorder.all.map(\.status) == [503])
    }

    @Test func readBudgetSplitsALargeRequestOverLoopTurnsWithoutLosingBytes() async throws {
        try await withTestServer(EchoHandler(), configuration: configuration { $0.readBudgetPerTurn = 1 }) { port in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            let body = String(repeating: "0123456789", count: 30_000)
            try await client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
            try await client.send(get("/after"))
            let first = try await client.readResponse()
            #expect(first.status == 200)
            #expect(first.body.count == "POST /echo ".count + body.utf8.count)
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test func hugeTimeoutsDoNotTrap() async throws {
        // `--server.read_timeout 2562047h` (valid configuration) and a timeout beyond Int64 nanoseconds.
        for timeout in [Duration.seconds(2_562_047 * 3600), .seconds(Int64.max)] {
            let settings = configuration {
                $0.headTimeout = timeout
                $0.bodyTimeout = timeout
                $0.requestTimeout = timeout
                $0.idleTimeout = timeout
                $0.writeTimeout = timeout
                $0.shutdownGracePeriod = timeout
            }
            try await withTestServer(EchoHandler(), configuration: settings) { port in
                let client = try await TestHTTPClient.connect(port: port)
                defer { client.close() }
                try await client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
                #expect(try await client.readResponse().status == 200)
            }
        }
    }

    @Test func atTheCapANewConnectionReplacesTheOldestWaitingOne() async throws {
        try await withTestServer(EchoHandler(), configuration: configuration { $0.maxConnections = 2 }) { port in
            let older = try await TestHTTPClient.connect(port: port)
            try await older.send(get("/one"))
            #expect(try await older.readResponse().status == 200)
            let newer = try await TestHTTPClient.connect(port: port)
            defer { newer.close() }
            try await newer.send(get("/two"))
            #expect(try await newer.readResponse().status == 200)
            // Both slots are taken by keep-alive connections between requests; a third still gets served.
            let fresh = try await TestHTTPClient.connect(port: port)
            defer { fresh.close() }
            try await fresh.send(get("/three"))
            #expect(try await fresh.readResponse().status == 200)
            // The older one made room.
            #expect(await older.isClosedByServer())
            older.close()
            try await newer.send(get("/four"))
            #expect(try await newer.readResponse().status == 200)
        }
    }

    /// What a connection has done outranks its age: a connection that never sent a byte makes
    /// room before an older keep-alive connection that was served (a scraper's), and the
    /// evictions are counted.
    @Test func atTheCapASilentConnectionMakesRoomBeforeAServedOne() async throws {
        let server = WPHTTPServer(configuration: configuration { $0.maxConnections = 2 }, handler: EchoHandler(),
                                logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening().port
        let served = try await TestHTTPClient.connect(port: port)
        defer { served.close() }
        try await served.send(get("/one"))
        #expect(try await served.readResponse().status == 200)
        let silent = try await TestHTTPClient.connect(port: port)
        let fresh = try await TestHTTPClient.connect(port: port)
        defer { fresh.close() }
        try await fresh.send(get("/two"))
        #expect(try await fresh.readResponse().status == 200)
        #expect(await silent.isClosedByServer())
        silent.close()
        try await served.send(get("/three"))
        #expect(try await served.readResponse().status == 200)
        let statistics = server.statistics
        #expect(statistics.evicted == 1 && statistics.accepted == 3 && statistics.refused == 0)
    }
}
