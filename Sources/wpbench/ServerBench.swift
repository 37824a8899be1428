import WPRuntime
import Foundation
import WPLogging
import WPServer

/// Benchmark scenarios for the Server area, and the `http-serve` helper process the load
/// test (Benchmarks/measure/loadtest.sh) drives with wrk.
enum ServerBench {
    static let scenarios: [Scenario] = [
        Scenario(name: "server-loopback", summary: "keep-alive GET of a 60 KB body over loopback, 4 connections") {
            try await loopback(connections: 4, bodyBytes: 60 * 1024, duration: .seconds(3))
        },
        Scenario(name: "server-codec", summary: "parse a typical scrape request and encode a 60 KB response") {
            codec()
        },
        Scenario(name: "server-loopback-small", summary: "keep-alive GET of a 100 B body over loopback, 4 connections") {
            try await loopback(connections: 4, bodyBytes: 100, duration: .seconds(3))
        },
    ]

    /// Bodies the helper server answers with: `/60k`, `/2m`, `/small`; `/healthz` says ok.
    static func makeRouter() -> WPRouter {
        let body60k = [UInt8](repeating: UInt8(ascii: "a"), count: 60 * 1024)
        let body2m = [UInt8](repeating: UInt8(ascii: "b"), count: 2 * 1024 * 1024)
        var router = WPRouter()
        router.get("/60k") { _ in WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body60k) }
        router.get("/2m") { _ in WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body2m) }
        router.get("/small") { _ in .text("ok\n") }
        router.get("/healthz") { _ in .text("ok\n") }
        return router
    }

    /// `wpbench --child http-serve [PORT]`: serves ``makeRouter()`` on 127.0.0.1:PORT (default
    /// ephemeral), prints `listening PORT` once bound, and runs until killed. Timeouts are long
    /// so a second process can hold thousands of idle connections during the measurement.
    static func serveChild(_ arguments: [String]) async -> Int32 {
        var configuration = WPHTTPServer.Configuration(host: "127.0.0.1", port: arguments.first.flatMap(Int.init) ?? 0)
        configuration.headTimeout = .seconds(300)
        configuration.idleTimeout = .seconds(300)
        configuration.maxConnections = 20_000
        configuration.maxRequestsPerConnection = Int.max
        let server = WPHTTPServer(configuration: configuration, handler: makeRouter(), logger: .disabled)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                let address = try await server.waitUntilListening()
                FileHandle.standardOutput.write(Data("listening \(address.port)\n".utf8))
                try await group.next()
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("http-serve: \(error)\n".utf8))
            return 1
        }
    }

    /// Times the pure codec without sockets.
    private static func codec() {
        let request = Array(("GET /metrics HTTP/1.1\r\nHost: exporter:9090\r\nUser-Agent: Prometheus/2.53.0\r\n"
            + "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n"
            + "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n").utf8)
        let answering = WPHTTPRequest(method: "GET", target: "/metrics", headers: ["Accept-Encoding": "gzip"])
        let response = WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"],
                                    body: [UInt8](repeating: 0x61, count: 60 * 1024))
        let iterations = 200_000
        let clock = ContinuousClock()
        var parsed = 0
        let parseTime = clock.measure {
            for _ in 0..<iterations {
                if let (parsedRequest, _) = try? HTTPCodec.parseRequest(request) { parsed += parsedRequest.headers.count }
            }
        }
        var bytes = 0
        let encodeTime = clock.measure {
            for _ in 0..<iterations {
                bytes += HTTPCodec.encode(response, answering: answering, date: "Sun, 06 Nov 1994 08:49:37 GMT").count
            }
        }
        func perCall(_ duration: Duration) -> Double {
            duration.inSeconds * 1e9 / Double(iterations)
        }
        print(String(format: "   parse %.0f ns/request, encode %.0f ns/response (%d, %d)",
                     perCall(parseTime), perCall(encodeTime), parsed / iterations, bytes / iterations))
    }

    /// Runs the server in-process and hammers it from blocking client threads.
    private static func loopback(connections: Int, bodyBytes: Int, duration: Duration) async throws {
        let body = [UInt8](repeating: 0x61, count: bodyBytes)
        let handler = HandlerFunction { _ in WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body) }
        var configuration = WPHTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.maxRequestsPerConnection = Int.max
        let server = WPHTTPServer(configuration: configuration, handler: handler, logger: .disabled)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let port = try await server.waitUntilListening().port
            let results = try await withThrowingTaskGroup(of: [Double].self) { clients in
                for _ in 0..<connections {
                    clients.addTask { try await LoopbackClient.run(port: port, duration: duration) }
                }
                var all: [Double] = []
                for try await latencies in clients { all += latencies }
                return all.sorted()
            }
            let seconds = Double(duration.components.seconds)
            let p50 = results.isEmpty ? 0 : results[results.count / 2]
            let p99 = results.isEmpty ? 0 : results[min(results.count - 1, results.count * 99 / 100)]
            print(String(format: "   %.0f req/s, p50 %.3f ms, p99 %.3f ms (%d requests)",
                         Double(results.count) / seconds, p50 * 1000, p99 * 1000, results.count))
            group.cancelAll()
        }
    }
}
