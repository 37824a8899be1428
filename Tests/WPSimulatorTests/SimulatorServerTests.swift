import Synchronization
import Testing
import WPTestThreads
import WPRuntime
import WPServer
import WPSimulator
import WPTestSupport

/// The simulator served on a real socket, and `unreachable` as refused connections.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct SimulatorServerTests {
    static func login(port: Int) async throws -> TestHTTPClient.Response {
        let connection = try await TestHTTPClient.connect(port: port)
        defer { connection.close() }
        let body = #"{"username":"admin","password":"admin"}"#
        try await connection.send("POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                  + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
        return try await connection.readResponse()
    }

    /// Like the real (Spring Boot) server, replies are framed with `Transfer-Encoding: chunked`.
    @Test func repliesAreChunkedLikeTheRealServers() async throws {
        let server = SimulatorServer(simulator: WinPowerSimulator())
        let port = try await server.start().port
        let response = try await Self.login(port: port)
        await server.stop()
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.header("Content-Length") == nil)
        #expect(response.header("X-Frame-Options") == "DENY")
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(body.contains("\r\n{\"code\":\"000000\""))
        #expect(body.hasSuffix("\r\n0\r\n\r\n"))
    }

    @Test func unreachableRefusesConnectionsAndRecoveryListensOnTheSamePort() async throws {
        let server = SimulatorServer(simulator: WinPowerSimulator())
        let port = try await server.start().port
        #expect(try await Self.login(port: port).status == 200)

        try await server.setUnreachable(true)
        #expect(server.simulator.isUnreachable)
        await #expect(throws: TestHTTPClient.ClientError.self) { _ = try await TestHTTPClient.connect(port: port) }

        try await server.setUnreachable(false)
        #expect(server.address?.port == port)
        #expect(try await Self.login(port: port).status == 200)
        #expect(server.simulator.counters.logins == 2)
        await server.stop()
        await #expect(throws: TestHTTPClient.ClientError.self) { _ = try await TestHTTPClient.connect(port: port) }
    }

    /// The port passes between the listener and the reservation without ever being free: a
    /// socket trying to bind it all along (as another test binding port 0 might be given it)
    /// never succeeds, over 20 round trips in both directions.
    @Test func thePortIsNeverFreeWhileSwitching() async throws {
        let server = SimulatorServer(simulator: WinPowerSimulator())
        let port = try await server.start().port
        let done = Atomic<Bool>(false)
        let started = Atomic<Bool>(false)
        let attempts = Task {
            try await NamedThread.run(name: "test-bind") { () -> (tries: Int, bound: Int) in
                var (tries, bound) = (0, 0)
                while !done.load(ordering: .acquiring) {
                    tries += 1
                    started.store(true, ordering: .releasing)
                    if let held = try? ReservedPort(port: port, mode: .refusing) {
                        held.close()
                        bound += 1
                    }
                }
                return (tries, bound)
            }
        }
        while !started.load(ordering: .acquiring) { await Task.yield() }
        for _ in 0..<20 {
            try await server.setUnreachable(true)
            try await server.setUnreachable(false)
        }
        done.store(true, ordering: .releasing)
        let result = try await attempts.value
        #expect(result.tries > 0)
        #expect(result.bound == 0, "the port was free \(result.bound) times in \(result.tries) attempts")
        #expect(try await Self.login(port: port).status == 200)
        await server.stop()
    }

    @Test func startingUnreachableLearnsThePortButRefuses() async throws {
        var configuration = WinPowerSimulator.Configuration()
        configuration.faults = [.unreachable]
        let server = SimulatorServer(simulator: WinPowerSimulator(configuration: configuration))
        let port = try await server.start().port
        #expect(port > 0)
        await #expect(throws: TestHTTPClient.ClientError.self) { _ = try await TestHTTPClient.connect(port: port) }
        try await server.setUnreachable(false)
        #expect(try await Self.login(port: port).status == 200)
        await server.stop()
    }
}
