import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import WPTestThreads
import WPMetrics
@testable import WPPushgateway
import WPServer
import WPRuntime
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct PushgatewayClientTests {
    private func client(
        _ gateway: FakePushgateway, grouping: [String: String] = [:], password: String? = nil,
        clock: ManualClock = ManualClock(), attempts: Int = 3
    ) throws -> PushgatewayClient {
        let url = try #require(URL(string: "http://gateway.test:9091/"))
        return try PushgatewayClient(
            configuration: .init(url: url, job: "backup", grouping: grouping, maxAttempts: attempts,
                                 username: password == nil ? nil : "pusher", password: password),
            transport: gateway, clock: clock)
    }

    private func registry() throws -> MetricRegistry {
        let registry = MetricRegistry()
        try registry.gauge(name: "backup_last_success_seconds", help: "Last success.").set(1_700_000_000)
        return registry
    }

    @Test func putsTheRegistryOnTheGroupPath() async throws {
        let gateway = FakePushgateway()
        let client = try client(gateway, grouping: ["instance": "db1", "path": "/var/lib", "empty": ""])
        try await client.push(try registry())
        let request = try #require(gateway.requests.first)
        #expect(request.method == "PUT")
        #expect(request.url.absoluteString
                == "http://gateway.test:9091/metrics/job/backup/empty@base64/=/instance/db1/path@base64/L3Zhci9saWI")
        #expect(request.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(String(decoding: request.body, as: UTF8.self).contains("backup_last_success_seconds 1.7e+09"))
        try await client.pushAdd(try registry())
        try await client.delete()
        #expect(gateway.requests.map(\.method) == ["PUT", "POST", "DELETE"])
        #expect(gateway.groups.isEmpty)
    }

    @Test func pushesRenderedBytesUnchanged() async throws {
        let gateway = FakePushgateway()
        let client = try client(gateway)
        let body = Array("# TYPE a gauge\na 1\n".utf8)
        try await client.push(rendered: body)
        try await client.push(rendered: body, replace: false)
        #expect(gateway.requests.map(\.method) == ["PUT", "POST"])
        #expect(gateway.requests.allSatisfy { $0.body == body })
        #expect(gateway.requests.first?.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
    }

    @Test func encodesJobAndValuesThatNeedIt() {
        #expect(PushgatewayClient.segment("job", "a/b") == "job@base64/YS9i")
        #expect(PushgatewayClient.segment("x", "") == "x@base64/=")
        #expect(PushgatewayClient.segment("x", "a b") == "x/a%20b")
    }

    @Test func retriesServerErrorsWithBackoff() async throws {
        let gateway = FakePushgateway(script: [.status(503, "busy"), .failure("connection refused")])
        let clock = ManualClock()
        let client = try client(gateway, clock: clock)
        let push = Task { try await client.push(try registry()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(500))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        try await push.value
        #expect(gateway.requests.count == 3)
    }

    @Test func givesUpAfterMaxAttemptsSayingWhatTheGatewayAnswered() async throws {
        let gateway = FakePushgateway(script: [.status(500, "disk full"), .status(500, "disk full")])
        let clock = ManualClock()
        let client = try client(gateway, clock: clock, attempts: 2)
        let registry = try registry()
        let push = Task { () -> PushError? in
            do {
                try await client.push(registry)
                return nil
            } catch {
                return error as? PushError
            }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(500))
        let error = await push.value
        #expect(error == .failed(url: "http://gateway.test:9091/metrics/job/backup", status: 500, body: "disk full", attempts: 2))
        #expect(error?.description.contains("HTTP 500") == true)
        #expect(PushgatewayClient.backoff(afterAttempt: 3, configuration: client.configuration) == .seconds(2))
    }

    @Test func neverRetriesClientErrors() async throws {
        let gateway = FakePushgateway(script: [.status(400, "text format parsing error in line 3")])
        let client = try client(gateway)
        await #expect(throws: PushError.rejected(url: "http://gateway.test:9091/metrics/job/backup", status: 400,
                                                 body: "text format parsing error in line 3")) {
            try await client.push(try registry())
        }
        #expect(gateway.requests.count == 1)
    }

    @Test func passwordNeverAppearsInErrorsOrDescriptions() async throws {
        let secret = "s3cr3t-pa55"
        let gateway = FakePushgateway(script: [.status(401, "bad credentials \(secret)")])
        let client = try client(gateway, password: secret)
        do {
            try await client.push(try registry())
            Issue.record("expected failure")
        } catch {
            #expect(!String(describing: error).contains(secret))
            #expect(!String(reflecting: error).contains(secret))
        }
        let header = try #require(gateway.requests.first?.headers["Authorization"])
        #expect(header == "Basic " + Data("pusher:\(secret)".utf8).base64EncodedString())
        #expect(!client.configuration.description.contains(secret))
        var dumped = ""
        dump(client.configuration, to: &dumped)
        #expect(!dumped.contains(secret))
    }

    @Test func rejectsUnusableConfiguration() throws {
        let withCredentials = try #require(URL(string: "http://user:pw@gateway:9091"))
        #expect(throws: PushError.self) {
            try PushgatewayClient(configuration: .init(url: withCredentials, job: "j"), transport: FakePushgateway(), clock: ManualClock())
        }
        let plain = try #require(URL(string: "http://gateway:9091"))
        #expect(throws: PushError.self) {
            try PushgatewayClient(configuration: .init(url: plain, job: ""), transport: FakePushgateway(), clock: ManualClock())
        }
        #expect(throws: PushError.self) {
            try PushgatewayClient(configuration: .init(url: plain, job: "j", grouping: ["bad-name": "x"]),
                                  transport: FakePushgateway(), clock: ManualClock())
        }
    }
}

#if canImport(Glibc)
/// The default transport, ``HTTPClientPushTransport``, over real sockets.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HTTPClientPushTransportTests {
    /// A loopback port that was free a moment ago: bind port 0, read it, close.
    private func closedLoopbackPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        try #require(named == 0)
        return UInt16(bigEndian: address.sin_port)
    }

    @Test func connectionRefusedIsUnreachableWithoutThePassword() async throws {
        let port = try closedLoopbackPort()
        let secret = "pa55-w0rd-secret"
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let client = try PushgatewayClient(
            configuration: .init(url: url, job: "j", timeout: .seconds(5), maxAttempts: 1, username: "u", password: secret),
            clock: ManualClock())
        do {
            try await client.delete()
            Issue.record("expected the push to fail")
        } catch {
            guard case .unreachable(let shownURL, _, let attempts) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(shownURL == "http://127.0.0.1:\(port)/metrics/job/j")
            #expect(attempts == 1)
            #expect(!error.description.contains(secret))
        }
    }

    /// A gateway that echoes the request line and headers in its error answers (as a debugging
    /// proxy or a misconfigured gateway does) must not put the credentials in the error: not the
    /// base64 `Authorization: Basic …`, not the raw or percent-encoded password.
    @Test func anEchoingGatewayCannotPutTheCredentialsInErrors() async throws {
        let password = "p@ss:w0rd/echo"
        let encoded = Data("pusher:\(password)".utf8).base64EncodedString()
        let handler = HandlerFunction { request in
            let echo = "\(request.method) \(request.path) Authorization: \(request.headers["Authorization"] ?? "-") "
                + "user=pusher:\(password) form=password=p%40ss%3Aw0rd%2Fecho"
            return .text(echo, status: request.method == "DELETE" ? 401 : 503)
        }
        try await withTestServer(handler) { port in
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let client = try PushgatewayClient(
                configuration: .init(url: url, job: "j", maxAttempts: 1, username: "pusher", password: password),
                clock: ManualClock())
            var messages: [String] = []
            for push in [{ try await client.delete() }, { try await client.push(rendered: Array("a 1\n".utf8)) }] {
                do {
                    try await push()
                    Issue.record("expected the gateway's error")
                } catch {
                    messages.append(String(describing: error) + String(reflecting: error))
                }
            }
            #expect(messages.count == 2)
            for message in messages {
                #expect(message.contains("Authorization: Basic ***"), "\(message)")
                #expect(message.contains("user=pusher:***"), "\(message)")
                #expect(message.contains("form=password=***"), "\(message)")
                #expect(!message.contains(encoded))
                #expect(!message.contains(password))
                #expect(!message.contains("w0rd"))
            }
        }
    }

    @Test func pushesToARealServerWithBasicAuth() async throws {
        let seen = RequestLog()
        let handler = HandlerFunction { request in
            seen.append("\(request.method) \(request.path) \(request.headers["Authorization"] ?? "-") "
                        + "\(request.headers["Content-Type"] ?? "-") \(String(decoding: request.body, as: UTF8.self))")
            return request.method == "DELETE" ? .text("no such group", status: 404) : WPHTTPResponse(status: 202)
        }
        try await withTestServer(handler) { port in
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let client = try PushgatewayClient(
                configuration: .init(url: url, job: "j", grouping: ["instance": "a"], maxAttempts: 1,
                                     username: "u", password: "pw-secret"),
                clock: ManualClock())
            try await client.push(rendered: Array("a 1\n".utf8))
            do {
                try await client.delete()
                Issue.record("expected a rejection")
            } catch {
                #expect(error as? PushError == .rejected(url: "http://127.0.0.1:\(port)/metrics/job/j/instance/a", status: 404,
                                           body: "no such group"))
            }
        }
        #expect(seen.lines == ["PUT /metrics/job/j/instance/a Basic dTpwdy1zZWNyZXQ= text/plain; version=0.0.4; charset=utf-8 a 1\n",
                               "DELETE /metrics/job/j/instance/a Basic dTpwdy1zZWNyZXQ= - "])
    }
}

/// Lines recorded by a handler, in order.
private final class RequestLog: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
#endif
