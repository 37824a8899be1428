import FoundationEssentials
import Testing
import WPTestThreads
import WPHTTPClient

/// The client over real sockets against ``RawServer`` (127.0.0.1, port 0).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HTTPClientTests {
    static func request(_ port: Int, _ path: String = "/", method: String = "GET", headers: [(name: String, value: String)] = [],
                        body: String = "", timeout: Duration = .seconds(20)) throws -> HTTPClientRequest {
        HTTPClientRequest(method: method, url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")),
                          headers: headers, body: Array(body.utf8), timeout: timeout)
    }

    /// The error `body` throws; records an issue when it succeeds.
    static func failure(_ body: () async throws(HTTPClientError) -> HTTPClientResponse,
                        sourceLocation: SourceLocation = #_sourceLocation) async -> HTTPClientError? {
        do {
            let response = try await body()
            Issue.record("expected an error, got HTTP \(response.status)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    /// A client whose idle connections stay usable for an hour: the tests that count
    /// connections must not see one expire because a loaded machine left the test waiting
    /// longer than the default 30 s between two requests.
    static func keptAliveClient(userAgent: String? = nil) -> HTTPClient {
        var configuration = HTTPClient.Configuration(userAgent: userAgent)
        configuration.maxIdleTime = .seconds(3600)
        return HTTPClient(configuration: configuration)
    }

    @Test func allThreeFramingsOverASocket() async throws {
        try await withRawServer({ _, index, _ in
            switch index {
            case 1: .send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst")
            case 2: .send("HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nsecond\r\n0\r\n\r\n")
            default: .sendAndClose("HTTP/1.1 200 OK\r\n\r\nthird, until close")
            }
        }) { server in
            let client = Self.keptAliveClient()
            let first = try await client.send(try Self.request(server.port))
            #expect(first.status == 200 && first.body == Array("first".utf8))
            let second = try await client.send(try Self.request(server.port))
            #expect(second.status == 404 && second.body == Array("second".utf8))
            let third = try await client.send(try Self.request(server.port))
            #expect(third.body == Array("third, until close".utf8))
            #expect(server.acceptedConnections == 1)
        }
    }

    @Test func keepAliveReusesOneConnectionAndConnectionCloseEndsIt() async throws {
        try await withRawServer({ _, index, _ in
            index == 3 ? .send("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok") : .send(Self.ok)
        }) { server in
            let client = Self.keptAliveClient(userAgent: "test-agent")
            for _ in 0..<3 { #expect(try await client.send(try Self.request(server.port, method: "POST", body: "{}")).status == 200) }
            #expect(server.acceptedConnections == 1)
            _ = try await client.send(try Self.request(server.port))
            #expect(server.acceptedConnections == 2)
            var heads: [String] = []
            for await request in server.requests {
                heads.append(request.head)
                if heads.count == 4 { break }
            }
            #expect(heads[0].hasPrefix("POST / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"))
            #expect(heads[0].contains("User-Agent: test-agent") && heads[0].contains("Content-Length: 2"))
        }
    }

    @Test func aStaleReusedConnectionIsRetriedOnceOnAFreshOne() async throws {
        // The first connection answers once, then closes on the next request without a byte,
        // as a server does when its idle timeout races a new request.
        try await withRawServer({ connection, index, _ in
            connection == 1 && index == 2 ? .close : .send(Self.ok)
        }) { server in
            let client = Self.keptAliveClient()
            _ = try await client.send(try Self.request(server.port))
            let retried = try await client.send(try Self.request(server.port, method: "POST", body: "x"))
            #expect(retried.status == 200)
            #expect(server.acceptedConnections == 2)
        }
    }

    @Test func aFreshConnectionClosedWithoutAnswerIsANetworkError() async throws {
        try await withRawServer({ _, _, _ in .close }) { server in
            let client = Self.keptAliveClient()
            let request = try Self.request(server.port)
            let error = await Self.failure { () async throws(HTTPClientError) in try await client.send(request) }
            #expect(error?.kind == .network)
            #expect(server.acceptedConnections == 1) // not retried
        }
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        try await withRawServer({ _, _, _ in .silence }) { server in
            let request = try Self.request(server.port, timeout: .milliseconds(200))
            let error = await Self.failure { () async throws(HTTPClientError) in try await HTTPClient().send(request) }
            #expect(error?.kind == .timeout)
        }
    }

    @Test func refusedConnectionsAndUnknownHostsHaveTheirKinds() async throws {
        let refused = try Self.request(try RawServer.closedPort())
        let client = HTTPClient()
        #expect(await Self.failure { () async throws(HTTPClientError) in try await client.send(refused) }?.kind
                == .connectionRefused)
        let unknown = HTTPClientRequest(url: try #require(URL(string: "http://\(HostResolverTests.unresolvableHost)/")), timeout: .seconds(20))
        #expect(await Self.failure { () async throws(HTTPClientError) in try await client.send(unknown) }?.kind
                == .hostNotFound)
    }

    @Test func cancellingTheTaskAbortsTheExchange() async throws {
        try await withRawServer({ _, _, _ in .silence }) { server in
            let request = try Self.request(server.port, timeout: .seconds(120))
            let client = HTTPClient()
            let task = Task { await Self.failure { () async throws(HTTPClientError) in try await client.send(request) } }
            for await _ in server.requests { break } // the request is on the wire
            task.cancel()
            #expect(await task.value?.kind == .cancelled)
        }
    }

    @Test func anAlreadyCancelledTaskSendsNothing() async throws {
        try await withRawServer({ _, _, _ in .send(Self.ok) }) { server in
            let request = try Self.request(server.port)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await Self.failure { () async throws(HTTPClientError) in try await HTTPClient().send(request) }
            }
            #expect(await task.value?.kind == .cancelled)
            #expect(server.acceptedConnections == 0)
        }
    }

    @Test func bodiesOverTheLimitAndMalformedResponsesFail() async throws {
        try await withRawServer({ connection, _, _ in
            connection == 1 ? .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + String(repeating: "x", count: 100))
                       : .sendAndClose("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nnot-hex\r\n")
        }) { server in
            let client = HTTPClient(configuration: .init(maxBodyBytes: 50))
            let request = try Self.request(server.port)
            #expect(await Self.failure { () async throws(HTTPClientError) in try await client.send(request) }?.kind == .tooLarge)
            #expect(await Self.failure { () async throws(HTTPClientError) in try await client.send(request) }?.kind
                    == .malformedResponse)
        }
    }

    /// A token in a header and in the query never appears in any error's text.
    @Test func errorsNeverContainTheQueryOrHeaderValues() async throws {
        let secret = "tok-5ecret-42"
        let headers: [(name: String, value: String)] = [("Authorization", "Bearer \(secret)"), ("X-Token", secret)]
        var errors: [HTTPClientError] = []
        func collect(_ url: String, timeout: Duration = .seconds(20), maxBody: Int = 1 << 20,
                     headers extra: [(name: String, value: String)] = []) async throws {
            let request = HTTPClientRequest(method: "POST", url: try #require(URL(string: url)), headers: headers + extra,
                                            body: Array(secret.utf8), timeout: timeout)
            let client = HTTPClient(configuration: .init(maxBodyBytes: maxBody))
            if let error = await Self.failure({ () async throws(HTTPClientError) in try await client.send(request) }) {
                errors.append(error)
            }
        }
        let path = "/api/\(secret)?token=\(secret)"
        try await collect("http://127.0.0.1:\(try RawServer.closedPort())\(path)")
        try await collect("http://\(HostResolverTests.unresolvableHost)\(path)")
        try await collect("ftp://127.0.0.1\(path)")
        try await collect("http://127.0.0.1:1\(path)", headers: [("X-Bad", "\(secret)\r\nInjected: 1")])
        // https:// goes through libcurl, whose messages are scrubbed too.
        try await collect("https://127.0.0.1:\(try RawServer.closedPort())\(path)")
        try await collect("https://\(HostResolverTests.unresolvableHost)\(path)")
        try await withRawServer({ _, _, head in
            head.contains("/slow") ? .silence
                : head.contains("/big") ? .send("HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n")
                : .sendAndClose("HTTP/1.1 200 \(secret)\r\n\(secret)\r\n\r\n")
        }) { server in
            try await collect("http://127.0.0.1:\(server.port)/slow?token=\(secret)", timeout: .milliseconds(100))
            try await collect("http://127.0.0.1:\(server.port)/big?token=\(secret)", maxBody: 10)
            try await collect("http://127.0.0.1:\(server.port)\(path)")
        }
        #expect(errors.count == 9)
        #expect(Set(errors.map(\.kind)).isSuperset(of: [.connectionRefused, .hostNotFound, .unsupportedScheme,
                                                         .invalidRequest, .timeout, .tooLarge, .malformedResponse]))
        for error in errors {
            #expect(!error.description.contains(secret), "\(error.kind) leaks the secret")
        }
    }
}
