// The examples of docs/http-server.md, as written there (only wrapped in functions). Linux only,
// like WPServer.
#if os(Linux)
import WPLogging
import WPServer

// Quick start
func quickStart(requestMetrics: any RequestObserver, metricsHandler: any HTTPHandler, logger: WPLogger) async throws {
    var router = WPRouter(observer: requestMetrics)          // observer is optional
    router.get("/healthz") { _ in .text("ok\n") }
    router.add("GET", "/metrics", metricsHandler)           // any HTTPHandler

    var configuration = WPHTTPServer.Configuration(host: "::", port: 9090)
    configuration.idleTimeout = .seconds(30)
    let server = WPHTTPServer(configuration: configuration, handler: router, logger: logger)

    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }            // serves until this task is cancelled
        let address = try await server.waitUntilListening()  // real port when port 0 was asked for
        logger.info("listening", ["address": "\(address)"])
        try await group.next()
    }
}
// Line-based protocols: `LineServer`
struct Echo: LineProtocol {                      // the session: lines answered so far
    func open(remote: String) -> Int { 0 }
    func handle(_ line: [UInt8], session: inout Int) async -> LineReply {
        session += 1
        return LineReply(Array("\(session): ".utf8) + line + [0x0A])
    }
    func isProtected(_ session: Int) -> Bool { false }
    func isEstablished(_ session: Int) -> Bool { session > 0 }
    func close(_ session: Int) {}
    var tooLongReply: [UInt8] { Array("ERR TOO-LONG\n".utf8) }
}

func lineServer(logger: WPLogger) async throws {
    let server = LineServer(configuration: .init(host: "127.0.0.1", port: 7000), protocol: Echo(), logger: logger)
    try await server.run()      // until the task is cancelled
}
#endif
