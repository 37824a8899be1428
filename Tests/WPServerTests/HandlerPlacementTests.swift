import Synchronization
import Testing
import WPTestThreads
import WPLogging
import Glibc
import WPServer
import WPTestSupport

/// Where handlers run: a handler doing long synchronous work (a registry's rendering, say)
/// runs on Swift's pool, so the event loop keeps answering every other connection; a handler
/// that serves a pre-rendered body runs on the loop.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HandlerPlacementTests {
    /// The name of the thread running the caller (`http-loop` for the event loop).
    static func threadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &bytes, bytes.count)
        return String(decoding: bytes.prefix(max(0, count)).filter { $0 != 0x0A }, as: UTF8.self)
    }

    private static func get(_ path: String) -> String {
        "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n"
    }

    /// Before, every handler ran on the loop thread by default, so one rendering a large
    /// registry held every other connection; now only a handler that says it serves a
    /// pre-rendered body does, and a body it still has to compress is compressed off the loop.
    @Test func onlyAPreRenderedHandlerRunsOnTheLoop() async throws {
        let names = Mutex<[String: String]>([:])
        var router = WPRouter()
        router.get("/computed") { _ in
            names.withLock { $0["computed"] = Self.threadName() }
            return .text("computed\n")
        }
        router.get("/rendered", preRendered: true) { _ in
            names.withLock { $0["rendered"] = Self.threadName() }
            return .text(String(repeating: "compress me ", count: 500))
        }
        let server = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: router, logger: .disabled)
        let run = Task { try await server.run() }
        defer { run.cancel() }
        let port = try await server.waitUntilListening().port
        let client = try await TestHTTPClient.connect(port: port)
        defer { client.close() }
        try await client.send(Self.get("/computed"))
        #expect(try await client.readResponse().text == "computed\n")
        try await client.send("GET /rendered HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip\r\n\r\n")
        let rendered = try await client.readResponse()
        #expect(rendered.header("Content-Encoding") == "gzip")
        let seen = names.withLock { $0 }
        #expect(seen["rendered"] == "http-loop")
        #expect(seen["computed"] != nil && seen["computed"] != "http-loop")
    }

    @Test func theRouterAsksTheMatchedRoute() {
        var router = WPRouter()
        router.get("/rendered", preRendered: true) { _ in .text("x") }
        router.get("/computed") { _ in .text("x") }
        func request(_ method: String, _ path: String) -> WPHTTPRequest {
            WPHTTPRequest(method: method, target: path, headers: WPHTTPHeaders(), body: [], remoteAddress: "127.0.0.1:1")
        }
        #expect(router.servesPreRenderedBody(request("GET", "/rendered")))
        #expect(router.servesPreRenderedBody(request("HEAD", "/rendered")))
        #expect(!router.servesPreRenderedBody(request("GET", "/computed")))
        #expect(!router.servesPreRenderedBody(request("GET", "/missing")))
        #expect(!router.servesPreRenderedBody(request("POST", "/rendered")))
    }
}
