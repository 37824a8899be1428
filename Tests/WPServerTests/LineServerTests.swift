import Synchronization
import Testing
import WPTestThreads
import WPLogging
import WPServer
import WPTestSupport

/// Upper-cases each line; `LOGIN` protects the connection, `QUIT` closes it, `SLOW` answers
/// only once released, `VER` answers without establishing the connection (every other line
/// establishes it).
private struct Shouting: LineProtocol {
    struct Session: Sendable {
        var remote: String
        var protected = false
        var established = false
        var lines = 0
    }

    let closed = ClosedSessions()
    let gate = OpenOnceGate()

    func open(remote: String) -> Session { Session(remote: remote) }

    func handle(_ line: [UInt8], session: inout Session) async -> LineReply {
        session.lines += 1
        let text = String(decoding: line, as: UTF8.self)
        switch text {
        case "LOGIN":
            session.protected = true
            return LineReply(Array("OK\n".utf8))
        case "QUIT":
            return LineReply(Array("BYE\n".utf8), then: .close)
        case "SLOW":
            await gate.wait()
            return LineReply(Array("LATE\n".utf8))
        case "VER":
            return LineReply(Array("SHOUTING 1\n".utf8))
        default:
            session.established = true
            return LineReply(Array("\(text.uppercased()) #\(session.lines)\n".utf8))
        }
    }

    func isProtected(_ session: Session) -> Bool { session.protected }
    func isEstablished(_ session: Session) -> Bool { session.established }
    func close(_ session: Session) { closed.add(session.remote) }
    var tooLongReply: [UInt8] { Array("ERR TOO-LONG\n".utf8) }
}

/// The remotes whose sessions were closed.
private final class ClosedSessions: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ remote: String) { list.withLock { $0.append(remote) } }
    var count: Int { list.withLock { $0.count } }
}

@Suite(.ownThreads, .timeLimit(.minutes(4))) struct LineServerTests {
    private static func serving<T>(_ configuration: LineServer<Shouting>.Configuration = .init(host: "127.0.0.1", port: 0),
                                   _ lineProtocol: Shouting = Shouting(),
                                   _ body: (Int, LineServer<Shouting>) async throws -> T) async throws -> T {
        let server = LineServer(configuration: configuration, protocol: lineProtocol, logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening().port
        return try await body(port, server)
    }

    /// A task waiting for a server that never starts is freed by cancellation, as with
    /// ``WPHTTPServer`` (it waited for good before).
    @Test func waitingForListeningEndsWhenCancelled() async {
        let server = LineServer(configuration: .init(host: "127.0.0.1", port: 0), protocol: Shouting(), logger: .disabled)
        let waiting = Task { try await server.waitUntilListening() }
        waiting.cancel()
        let result = await waiting.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    /// A port in use is a ``ServerError`` naming the address; a second run is refused.
    @Test func aTakenPortIsABindErrorNamingTheAddress() async throws {
        try await Self.serving { port, _ in
            let second = LineServer(configuration: .init(host: "127.0.0.1", port: port), protocol: Shouting(), logger: .disabled)
            await #expect {
                try await second.run()
            } throws: { error in
                guard case ServerError.bind(let address, _) = error else { return false }
                return address == "127.0.0.1:\(port)"
            }
            await #expect(throws: ServerError.alreadyStarted) { try await second.run() }
        }
    }

    @Test func linesAreAnsweredInOrderIncludingPipelinedOnes() async throws {
        try await Self.serving { port, server in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            try await client.send("hello\r\nworld\nagain\n")
            #expect(try await client.readLine() == "HELLO #1")
            #expect(try await client.readLine() == "WORLD #2")
            #expect(try await client.readLine() == "AGAIN #3")
            try await client.send("QUIT\n")
            #expect(try await client.readLine() == "BYE")
            #expect(await client.isClosedByServer())
            #expect(server.statistics.lines == 4)
        }
    }

    /// A line being handled holds up only its own connection.
    @Test func aSlowLineDelaysOnlyItsConnection() async throws {
        let lineProtocol = Shouting()
        try await Self.serving(.init(host: "127.0.0.1", port: 0), lineProtocol) { port, _ in
            let slow = try await TestHTTPClient.connect(port: port)
            let other = try await TestHTTPClient.connect(port: port)
            defer { slow.close(); other.close() }
            try await slow.send("SLOW\nafter\n")
            try await other.send("ping\n")
            #expect(try await other.readLine() == "PING #1")
            lineProtocol.gate.open()
            #expect(try await slow.readLine() == "LATE")
            #expect(try await slow.readLine() == "AFTER #2")
        }
    }

    @Test func aLineOverTheLimitIsRefusedAndClosed() async throws {
        try await Self.serving(.init(host: "127.0.0.1", port: 0, maxLineLength: 16)) { port, server in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            try await client.send(String(repeating: "x", count: 40))
            #expect(try await client.readLine() == "ERR TOO-LONG")
            #expect(await client.isClosedByServer())
            #expect(server.statistics.timedOutOrTooLong == 1)
        }
    }

    /// At the cap, the oldest unprotected connection makes room; protected ones stay, and when
    /// every connection is protected a new one is refused.
    @Test func theCapEvictsTheOldestUnprotectedConnection() async throws {
        try await Self.serving(.init(host: "127.0.0.1", port: 0, maxConnections: 2)) { port, server in
            let monitor = try await TestHTTPClient.connect(port: port)
            try await monitor.send("LOGIN\n")
            #expect(try await monitor.readLine() == "OK")
            let idle = try await TestHTTPClient.connect(port: port)
            try await idle.send("x\n")
            #expect(try await idle.readLine() == "X #1")
            let newcomer = try await TestHTTPClient.connect(port: port)
            try await newcomer.send("y\n")
            #expect(try await newcomer.readLine() == "Y #1")
            #expect(await idle.isClosedByServer())
            try await monitor.send("still\n")
            #expect(try await monitor.readLine() == "STILL #2")
            try await newcomer.send("LOGIN\n")
            #expect(try await newcomer.readLine() == "OK")
            let refused = try await TestHTTPClient.connect(port: port)
            #expect(await refused.isClosedByServer())
            #expect(server.statistics.evicted == 1)
            #expect(server.statistics.refused == 1)
            for client in [monitor, idle, newcomer, refused] { client.close() }
        }
    }

    /// Room is made from the connection whose last complete line is oldest, not the oldest
    /// connection: a client busy sending lines outlives later ones that never finish a line.
    @Test func theCapEvictsTheConnectionSilentTheLongest() async throws {
        try await Self.serving(.init(host: "127.0.0.1", port: 0, maxConnections: 2)) { port, server in
            let busy = try await TestHTTPClient.connect(port: port)
            try await busy.send("a\n")
            #expect(try await busy.readLine() == "A #1")
            let slow = try await TestHTTPClient.connect(port: port)
            try await slow.send("never ends")
            try await busy.send("b\n")
            #expect(try await busy.readLine() == "B #2")
            let newcomer = try await TestHTTPClient.connect(port: port)
            try await newcomer.send("c\n")
            #expect(try await newcomer.readLine() == "C #1")
            #expect(await slow.isClosedByServer(), "accepted after busy's first line, but busy sent one since")
            try await busy.send("d\n")
            #expect(try await busy.readLine() == "D #3")
            #expect(server.statistics.evicted == 1)
            for client in [busy, slow, newcomer] { client.close() }
        }
    }

    /// Churn: connections that never send a byte hold the table. A client that talked (not
    /// logged in, accepted before all of them) outlives them: room is made from the silent
    /// ones, oldest first, whatever their age against the talker's.
    @Test func silentConnectionsMakeRoomBeforeAClientThatTalked() async throws {
        try await Self.serving(.init(host: "127.0.0.1", port: 0, maxConnections: 3)) { port, server in
            let talker = try await TestHTTPClient.connect(port: port)
            try await talker.send("poll\n")
            #expect(try await talker.readLine() == "POLL #1")
            let silent = [try await TestHTTPClient.connect(port: port), try await TestHTTPClient.connect(port: port)]
            var newcomers: [TestHTTPClient] = []
            defer { for client in newcomers { client.close() } }
            for round in 1...2 {
                let newcomer = try await TestHTTPClient.connect(port: port)
                newcomers.append(newcomer)
                try await newcomer.send("hello\n")
                #expect(try await newcomer.readLine() == "HELLO #1")
                // Round 2: the first newcomer talked too, later than the talker; still the
                // silent one goes.
                #expect(await silent[round - 1].isClosedByServer(), "round \(round)")
            }
            try await talker.send("again\n")
            #expect(try await talker.readLine() == "AGAIN #2")
            #expect(server.statistics.evicted == 2)
            talker.close()
            for client in silent { client.close() }
        }
    }

    /// A flood that sends a byte, part of a line or only `VER` is no harder to evict than a
    /// client that has not sent its first line yet: a newcomer, younger than all of it, outlives
    /// the next flood connection (before, a silent newcomer went first), and an established
    /// client and a logged-in one outlive the whole flood.
    @Test func aNewcomerOutlivesOlderConnectionsWhateverTheySent() async throws {
        var configuration = LineServer<Shouting>.Configuration(host: "127.0.0.1", port: 0, maxConnections: 6)
        configuration.evictionGrace = .zero
        try await Self.serving(configuration) { port, server in
            var clients: [TestHTTPClient] = []
            defer { for client in clients { client.close() } }
            func connect() async throws -> TestHTTPClient {
                let client = try await TestHTTPClient.connect(port: port)
                clients.append(client)
                return client
            }
            let monitor = try await connect()
            try await monitor.send("LOGIN\n")
            #expect(try await monitor.readLine() == "OK")
            let poller = try await connect()
            try await poller.send("status\n")
            #expect(try await poller.readLine() == "STATUS #1")
            let oneByte = try await connect()
            try await oneByte.send("G")
            let partial = try await connect()
            try await partial.send("GET VAR ups")
            var greeters: [TestHTTPClient] = []
            for _ in 0..<2 {
                let greeter = try await connect()
                try await greeter.send("VER\n")
                #expect(try await greeter.readLine() == "SHOUTING 1")
                greeters.append(greeter)
            }
            // Full. The newcomer makes room and says nothing yet; one more greeter follows it
            // (answered: accepted, so its room was made).
            let newcomer = try await connect()
            let next = try await connect()
            try await next.send("VER\n")
            #expect(try await next.readLine() == "SHOUTING 1")
            try await newcomer.send("status\n")
            #expect(try await newcomer.readLine() == "STATUS #1", "the newcomer was not closed for the flood")
            #expect(await oneByte.isClosedByServer())
            #expect(await partial.isClosedByServer())
            // More flood than the table holds: it makes room from among its own.
            for _ in 0..<8 {
                let flood = try await connect()
                try await flood.send("VER\n")
                #expect(try await flood.readLine() == "SHOUTING 1")
            }
            for greeter in greeters { #expect(await greeter.isClosedByServer()) }
            try await poller.send("again\n")
            #expect(try await poller.readLine() == "AGAIN #2")
            try await newcomer.send("again\n")
            #expect(try await newcomer.readLine() == "AGAIN #2")
            try await monitor.send("still\n")
            #expect(try await monitor.readLine() == "STILL #2")
            #expect(server.statistics.evicted == 10)
            #expect(server.statistics.refused == 0)
        }
    }

    /// At the cap, a connection not established is kept for its grace: a newcomer waits in the
    /// backlog until the oldest one's grace ends (it is then served), and is never refused.
    @Test func aConnectionInItsGraceIsNotEvictedANewcomerWaits() async throws {
        var configuration = LineServer<Shouting>.Configuration(host: "127.0.0.1", port: 0, maxConnections: 2)
        configuration.evictionGrace = .milliseconds(300)
        try await Self.serving(configuration) { port, server in
            let clock = ContinuousClock()
            let started = clock.now
            let first = try await TestHTTPClient.connect(port: port)
            let second = try await TestHTTPClient.connect(port: port)
            defer { first.close(); second.close() }
            try await first.send("VER\n")
            #expect(try await first.readLine() == "SHOUTING 1")
            let newcomer = try await TestHTTPClient.connect(port: port)
            defer { newcomer.close() }
            try await newcomer.send("hello\n")
            #expect(try await newcomer.readLine() == "HELLO #1")
            #expect(clock.now - started >= .milliseconds(300), "served only once the first one's grace ended")
            #expect(await first.isClosedByServer())
            try await second.send("x\n")
            #expect(try await second.readLine() == "X #1", "the younger one stays")
            #expect(server.statistics.evicted == 1)
            #expect(server.statistics.refused == 0)
        }
    }

    /// At the cap with the only connection's line being handled, a newcomer waits in the
    /// backlog (it was refused before) and is served once that line is answered.
    @Test func aNewcomerWaitsWhileTheOnlyConnectionIsBeingAnswered() async throws {
        var configuration = LineServer<Shouting>.Configuration(host: "127.0.0.1", port: 0, maxConnections: 1)
        configuration.evictionGrace = .zero
        let lineProtocol = Shouting()
        try await Self.serving(configuration, lineProtocol) { port, server in
            let busy = try await TestHTTPClient.connect(port: port)
            defer { busy.close() }
            try await busy.send("SLOW\n")
            let newcomer = try await TestHTTPClient.connect(port: port)
            defer { newcomer.close() }
            try await newcomer.send("hi\n")
            lineProtocol.gate.open()
            #expect(try await busy.readLine() == "LATE")
            #expect(try await newcomer.readLine() == "HI #1")
            #expect(await busy.isClosedByServer(), "answered, then closed to make room")
            #expect(server.statistics.refused == 0)
            #expect(server.statistics.evicted == 1)
        }
    }

    /// A slow sender (half a line, then nothing) is closed at the line deadline, an idle one
    /// at the idle timeout; the protocol hears of every close.
    @Test func slowAndIdleConnectionsAreClosed() async throws {
        let lineProtocol = Shouting()
        try await Self.serving(.init(host: "127.0.0.1", port: 0, lineTimeout: .milliseconds(200),
                                     idleTimeout: .milliseconds(300)), lineProtocol) { port, server in
            let slowloris = try await TestHTTPClient.connect(port: port)
            try await slowloris.send("GET VAR")
            let idle = try await TestHTTPClient.connect(port: port)
            #expect(await slowloris.isClosedByServer())
            #expect(await idle.isClosedByServer())
            #expect(server.statistics.timedOutOrTooLong == 2)
            slowloris.close()
            idle.close()
        }
        #expect(lineProtocol.closed.count == 2)
    }
}
