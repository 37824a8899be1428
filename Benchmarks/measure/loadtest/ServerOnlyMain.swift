// A server-only binary for the load test: WPServer and WPLogging, nothing else, so its idle
// RSS shows what an embedding service pays. Built by Benchmarks/measure/loadtest.sh with swiftc.
//
//   [TLS_CERT=crt TLS_KEY=key] http-serve-only PORT   # prints "listening PORT", serves /60k, /2m, /small until killed
import Glibc
import WPLogging
import WPServer

let body60k = [UInt8](repeating: UInt8(ascii: "a"), count: 60 * 1024)
let body2m = [UInt8](repeating: UInt8(ascii: "b"), count: 2 * 1024 * 1024)
var router = WPRouter()
router.get("/60k") { _ in WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body60k) }
router.get("/2m") { _ in WPHTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body2m) }
router.get("/small") { _ in .text("ok\n") }

var configuration = WPHTTPServer.Configuration(host: "127.0.0.1", port: CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0)
configuration.headTimeout = .seconds(300)
configuration.idleTimeout = .seconds(300)
configuration.maxConnections = 20_000
configuration.maxRequestsPerConnection = Int.max
// HTTPS when TLS_CERT and TLS_KEY name PEM files (Benchmarks/measure/loadtest.sh --tls).
if let certificate = getenv("TLS_CERT").map({ String(cString: $0) }), let key = getenv("TLS_KEY").map({ String(cString: $0) }) {
    configuration.tls = WPTLSConfiguration(certificateFile: certificate, keyFile: key)
}
let server = WPHTTPServer(configuration: configuration, handler: router, logger: .disabled)
let serving = Task { try await server.run() }
let address = try await server.waitUntilListening()
print("listening \(address.port)")
fflush(nil)
try await serving.value
