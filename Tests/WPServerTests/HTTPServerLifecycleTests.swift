#if canImport(Glibc)
import Glibc
#endif
import WPCSystem
import Testing
import WPTestThreads
import WPLogging
@testable import WPServer
import WPTestSupport

/// The server's lifecycle over real sockets: the reactor's own deadline scan, caps, shutdown.
/// Each timeout's exact boundaries (head, body, request, idle, write) are in InMemoryHTTPTests.
@Suite(.ownThreads, .timeLimit(.minutes(5))) struct HTTPServerLifecycleTests {
    @Test func silentNewConnectionIsClosedAfterHeadTimeout() async throws {
        try await withTestServer(EchoHandler(), configuration: configuration { $0.headTimeout = .milliseconds(50) }) { port in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            #expect(await client.isClosedByServer())
        }
    }

    @Test func peerThatStopsReadingIsCutOffByWriteTimeout() async throws {
        let log = LogWaiter()
        let size = 16 << 20
        try await withTestServer(EchoHandler(bigBodySize: size), configuration: configuration { $0.writeTimeout = .milliseconds(100) },
                                 logger: log.logger()) { port in
            let client = try await TestHTTPClient.connect(port: port, receiveBufferSize: 4096)
            defer { client.close() }
            try await client.send(get("/big"))
            await log.waitFor("write timeout")
            let received = (try? await client.readToEnd()) ?? []
            #expect(received.count < size)
        }
    }

    /// At the cap with every connection busy (its handler running), nothing can make room: a
    /// new connection is closed. Idle ones are replaced instead
    /// (ServerHardeningTests.atTheCapANewConnectionReplacesTheOldestWaitingOne).
    @Test func connectionCapClosesExtraConnectionsWhileAllAreBusyAndServesOnceFree() async throws {
        let handler = TwoGateHandler()
        try await withTestServer(handler, configuration: configuration { $0.maxConnections = 2 }) { port in
            let first = try await TestHTTPClient.connect(port: port)
            try await first.send(get("/first"))
            await handler.first.waitUntilEntered()
            let second = try await TestHTTPClient.connect(port: port)
            try await second.send(get("/second"))
            await handler.second.waitUntilEntered()
            let extra = try await TestHTTPClient.connect(port: port)
            #expect(await extra.isClosedByServer())
            extra.close()
            handler.first.release()
            handler.second.release()
            for client in [first, second] {
                #expect(try await client.readResponse().status == 200)
            }
            first.close()
            var served = false
            for _ in 0..<200 where !served {
                let client = try await TestHTTPClient.connect(port: port)
                try? await client.send(get("/fresh"))
                served = (try? await client.readResponse())?.status == 200
                client.close()
            }
            #expect(served)
            second.close()
        }
    }

    @Test func gracefulShutdownFinishesInFlightRequest() async throws {
        let handler = EchoHandler()
        let server = WPHTTPServer(configuration: configuration(), handler: handler, logger: .disabled)
        let run = Task { try await server.run() }
        let port = try await server.waitUntilListening().port
        let client = try await TestHTTPClient.connect(port: port)
        defer { client.close() }
        try await client.send(get("/slow"))
        await handler.gate.waitUntilEntered()
        run.cancel()
        handler.gate.release()
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "slow done")
        #expect(response.header("Connection") == "close")
        try await run.value
        await #expect(throws: TestHTTPClient.ClientError.self) { try await TestHTTPClient.connect(port: port) }
        await #expect(throws: ServerError.notListening) { try await server.waitUntilListening() }
    }

    @Test func shutdownDeadlineClosesStuckRequests() async throws {
        let handler = EchoHandler()
        let server = WPHTTPServer(configuration: configuration { $0.shutdownGracePeriod = .milliseconds(50) },
                                handler: handler, logger: .disabled)
        let run = Task { try await server.run() }
        let port = try await server.waitUntilListening().port
        let client = try await TestHTTPClient.connect(port: port)
        defer { client.close() }
        try await client.send(get("/slow"))
        await handler.gate.waitUntilEntered()
        run.cancel()
        try await run.value
        #expect(await client.isClosedByServer())
    }

    @Test func waitingBeforeRunStartsGetsTheAddress() async throws {
        let server = WPHTTPServer(configuration: configuration(), handler: EchoHandler(), logger: .disabled)
        async let address = server.waitUntilListening()
        let run = Task { try await server.run() }
        #expect(try await address.port > 0)
        run.cancel()
        try await run.value
    }

    @Test func cancelledBeforeListeningStopsCleanly() async throws {
        let server = WPHTTPServer(configuration: configuration(), handler: EchoHandler(), logger: .disabled)
        let run = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await server.run()
        }
        try await run.value
        await #expect(throws: ServerError.notListening) { try await server.waitUntilListening() }
    }

    @Test func resetWhileHandlerRunsCancelsIt() async throws {
        let cancelled = AsyncStream<Void>.makeStream()
        let gate = Gate()
        let handler = HandlerFunction { _ in
            await withTaskCancellationHandler {
                await gate.pass()
            } onCancel: {
                cancelled.continuation.yield()
            }
            return .text("late")
        }
        try await withTestServer(handler) { port in
            let client = try await TestHTTPClient.connect(port: port)
            try await client.send(get("/"))
            await gate.waitUntilEntered()
            client.close(abort: true)
            var iterator = cancelled.stream.makeAsyncIterator()
            await iterator.next()
        }
    }

    @Test func halfClosedClientStillGetsItsAnswer() async throws {
        try await withTestServer(EchoHandler()) { port in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            try await client.send(get("/half"))
            client.shutdownWrite()
            #expect(try await client.readResponse().text == "GET /half ")
        }
    }

    @Test func bindingAnAddressInUseThrowsNamingIt() async throws {
        try await withTestServer(EchoHandler()) { port in
            let second = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: port), handler: EchoHandler(), logger: .disabled)
            await #expect(throws: ServerError.bind(address: "127.0.0.1:\(port)", reason: "Address already in use")) {
                try await second.run()
            }
            await #expect(throws: ServerError.bind(address: "127.0.0.1:\(port)", reason: "Address already in use")) {
                try await second.waitUntilListening()
            }
            await #expect(throws: ServerError.alreadyStarted) { try await second.run() }
        }
        // A name the resolver refuses without asking a name server (its first label is longer
        // than DNS allows), so nothing leaves this machine.
        let name = String(repeating: "a", count: 64) + ".invalid"
        let unknown = WPHTTPServer(configuration: .init(host: name, port: 0), handler: EchoHandler(), logger: .disabled)
        do {
            try await unknown.run()
            Issue.record("bind to an unknown host succeeded")
        } catch let ServerError.bind(address, _) {
            #expect(address == "\(name):0")
        }
    }

    /// `sharesPort` lets another socket setting `SO_REUSEPORT` bind the port while the server
    /// listens; without it, or for a socket without the flag, the port is the server's alone.
    @Test(arguments: [true, false]) func sharesPortLetsAnotherReusePortSocketBind(shares: Bool) async throws {
        try await withTestServer(EchoHandler(), configuration: configuration { $0.sharesPort = shares }) { port in
            let sharing = cs_bind_socket("127.0.0.1", Int32(port), Int32(CS_SOCK_STREAM), 16, Int32(CS_SHARE_PORT))
            defer { if sharing >= 0 { close(sharing) } }
            #expect((sharing >= 0) == shares, "SO_REUSEPORT socket: \(sharing < 0 ? String(cString: cs_listen_error(sharing)) : "bound")")
            let plain = cs_bind_socket("127.0.0.1", Int32(port), Int32(CS_SOCK_STREAM), 16, 0)
            defer { if plain >= 0 { close(plain) } }
            #expect(plain < 0, "a socket without SO_REUSEPORT never binds it")
        }
    }

    @Test(arguments: ["127.0.0.1", "localhost", "::1", "0.0.0.0", "::"])
    func bindsHostsAndReportsTheBoundAddress(host: String) async throws {
        let server = WPHTTPServer(configuration: .init(host: host, port: 0), handler: EchoHandler(), logger: .disabled)
        let run = Task { try await server.run() }
        let address: ServerAddress
        do {
            address = try await server.waitUntilListening()
        } catch ServerError.bind where host.contains(":") {
            return // no IPv6 on this machine
        }
        #expect(address.port > 0)
        let connectHost = host.contains(":") ? "::1" : host == "0.0.0.0" ? "127.0.0.1" : host
        let client = try await TestHTTPClient.connect(port: address.port, host: connectHost)
        try await client.send(get("/hi"))
        #expect(try await client.readResponse().status == 200)
        client.close()
        run.cancel()
        try await run.value
    }

    @Test func noDescriptorLeaksAcrossThousandsOfConnections() async throws {
        var portSeen = 0
        try await withTestServer(EchoHandler(), configuration: configuration { $0.headTimeout = .seconds(5) }) { port in
            portSeen = port
            #expect(cs_count_sockets_on_port(Int32(port)) == 1)
            for round in 0..<500 {
                let full = try await TestHTTPClient.connect(port: port)
                try await full.send(get("/\(round)", "Connection: close\r\n"))
                _ = try await full.readToEnd()
                full.close()
                let aborted = try await TestHTTPClient.connect(port: port)
                aborted.close(abort: true)
                let partial = try await TestHTTPClient.connect(port: port)
                try await partial.send("GET / HTTP/1.1\r\nHo")
                partial.close(abort: true)
                let unread = try await TestHTTPClient.connect(port: port)
                try await unread.send(get("/text"))
                unread.close()
            }
            // Each round trip below passes through the event loop after the closes above.
            var open = Int32(-1)
            for _ in 0..<500 where open != 1 {
                let barrier = try await TestHTTPClient.connect(port: port)
                try await barrier.send(get("/barrier", "Connection: close\r\n"))
                _ = try await barrier.readToEnd()
                barrier.close()
                open = cs_count_sockets_on_port(Int32(port))
            }
            #expect(open == 1)
        }
        #expect(cs_count_sockets_on_port(Int32(portSeen)) == 0)
    }
}

/// Holds `/first` and `/second` on a gate each (one waiter per gate); answers anything else.
private struct TwoGateHandler: HTTPHandler {
    let first = Gate()
    let second = Gate()

    func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        switch request.path {
        case "/first": await first.pass()
        case "/second": await second.pass()
        default: break
        }
        return .text(request.path)
    }
}
