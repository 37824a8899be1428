import Synchronization
import Testing
import WPTestThreads
import WPLogging
import WPNUT
import WPServer
import WPTestSupport

/// How many flood connections the server closed; wakes a waiter once a count is reached.
private final class FloodCount: Sendable {
    private let state = Mutex((count: 0, stopped: false, waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)]()))

    var stopped: Bool { state.withLock { $0.stopped } }
    var count: Int { state.withLock { $0.count } }
    func stop() { state.withLock { $0.stopped = true } }

    func increment() {
        let ready = state.withLock { state in
            state.count += 1
            let count = state.count
            defer { state.waiters.removeAll { $0.target <= count } }
            return state.waiters.filter { $0.target <= count }
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once `target` flood connections were closed by the server.
    func reached(_ target: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.count >= target { return true }
                state.waiters.append((target, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// A flood of connections reconnecting as soon as the NUT server closes them, each sending a
/// byte, part of a line, or `VER` only, twice as many as the server holds: new clients are
/// still served (`LIST UPS`, `GET VAR`, a login) and a monitor logged in before stays.
@Suite(.ownThreads, .timeLimit(.minutes(5))) struct NUTLockoutTests {
    /// What each third of the flood sends before waiting to be closed.
    static let floodLines = ["G", "GET VAR ups ups.st", "VER\n"]

    /// Greetings, credentials and errors leave a connection evictable first; a read answered
    /// or a login establishes it.
    @Test func onlyAUsefulCommandAnsweredEstablishesAConnection() async {
        let environment = NUTSessionTests.environment([NUTSessionTests.ups("ups")])
        let nut = NUTProtocol(environment: environment)
        var session = NUTSession(client: "c")
        for line in ["VER", "NETVER", "HELP", "STARTTLS", "USERNAME watcher", "PASSWORD pw", "LIST VAR nope",
                     "GET VAR ups no.such", "BOGUS"] {
            _ = await session.handle(Array(line.utf8), environment)
            #expect(!nut.isEstablished(session), "after \(line)")
        }
        _ = await session.handle(Array("LIST UPS".utf8), environment)
        #expect(nut.isEstablished(session))
        var upsmon = NUTSession(client: "d")
        _ = await NUTSessionTests.conversation(["USERNAME watcher", "PASSWORD pw", "LOGIN ups"], environment, session: &upsmon)
        #expect(nut.isEstablished(upsmon) && nut.isProtected(upsmon))
    }

    @Test func aFloodShortOfAUsefulCommandLocksNoClientOut() async throws {
        let state = NUTServerState()
        let environment = NUTSession.Environment(data: Fleet(list: [NUTSessionTests.ups("ups", status: "OB")]), users: Users(),
                                                 state: state, version: "1.0.0", failures: AuthFailureTracker())
        // The default grace (2 s): a new client's first round trips are not cut short.
        let configuration = LineServer<NUTProtocol>.Configuration(host: "127.0.0.1", port: 0, maxConnections: 12)
        let server = LineServer(configuration: configuration, protocol: NUTProtocol(environment: environment), logger: .disabled)
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let port = try await server.waitUntilListening().port

        let monitor = try await TestHTTPClient.connect(port: port)
        defer { monitor.close() }
        try await monitor.send("USERNAME monuser\nPASSWORD secret\nLOGIN ups\n")
        for expected in ["OK", "OK", "OK"] { #expect(try await monitor.readLine() == expected) }

        let closed = FloodCount()
        let flood = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        while !closed.stopped {
                            guard let connection = try? await TestHTTPClient.connect(port: port) else { continue }
                            try? await connection.send(Self.floodLines[index % 3])
                            _ = await connection.isClosedByServer()
                            connection.close()
                            closed.increment()
                        }
                    }
                }
            }
        }
        // The table full and churning: every flood connection closed once on average.
        await closed.reached(24)

        for _ in 0..<2 {
            let reader = try await TestHTTPClient.connect(port: port)
            defer { reader.close() }
            try await reader.send("LIST UPS\n")
            #expect(try await reader.readLine() == "BEGIN LIST UPS")
            #expect(try await reader.readLine() == "UPS ups \"Rack 'A' (Santak C3K)\"")
            #expect(try await reader.readLine() == "END LIST UPS")
            try await reader.send("GET VAR ups ups.status\n")
            #expect(try await reader.readLine() == "VAR ups ups.status \"OB\"")

            let upsmon = try await TestHTTPClient.connect(port: port)
            defer { upsmon.close() }
            try await upsmon.send("VER\n")
            #expect(try await upsmon.readLine().hasPrefix("Network UPS Tools upsd 1.0.0"))
            try await upsmon.send("USERNAME watcher\n")
            #expect(try await upsmon.readLine() == "OK")
            try await upsmon.send("PASSWORD pw\n")
            #expect(try await upsmon.readLine() == "OK")
            try await upsmon.send("LOGIN ups\n")
            #expect(try await upsmon.readLine() == "OK")
            try await upsmon.send("LOGOUT\n")
            #expect(try await upsmon.readLine() == "OK Goodbye")
        }
        // Another round of churn, then the monitor logged in before the flood still answers.
        // Up to one close per flood task (24) may have been evicted before `before` and seen by
        // its task only after: 48 closes seen from now on hold at least 24 evictions after it.
        let before = server.statistics.evicted
        await closed.reached(closed.count + 48)
        #expect(server.statistics.evicted >= before + 24)
        #expect(server.statistics.refused == 0)
        try await monitor.send("GET VAR ups ups.status\n")
        #expect(try await monitor.readLine() == "VAR ups ups.status \"OB\"")
        #expect(state.clients(of: "ups").count == 1, "the monitor's login is the only one left")

        closed.stop()
        running.cancel()
        await flood.value
    }
}
