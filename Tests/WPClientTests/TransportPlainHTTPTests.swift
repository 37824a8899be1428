import Foundation
import Testing
import WPTestThreads
import WPClient
import WPHTTPClient

/// The transport against a real local plain-HTTP server (`python3 -m http.server` on port 0),
/// whatever its certificate setting (which only matters for https://).
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(3))) struct TransportPlainHTTPTests {
    static let python = LocalServerProcess.executable("python3")

    static var transports: [any HTTPTransport] { [HTTPClientTransport(), HTTPClientTransport(tls: .skip)] }

    func withHTTPServer(_ body: (Int) async throws -> Void) async throws {
        let python = try #require(Self.python)
        try await withTemporaryDirectory { directory in
            try Data(#"{"code":"000000"}"#.utf8).write(to: directory.appendingPathComponent("data.json"))
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try Data("inside".utf8).write(to: directory.appendingPathComponent("sub/index.html"))
            let server = try LocalServerProcess(
                executable: python, arguments: ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"],
                directory: directory, portAfter: " port ")
            defer { server.stop() }
            try await body(server.port)
        }
    }

    static func get(_ port: Int, _ path: String) -> TransportRequest {
        TransportRequest(method: "GET", url: URL(string: "http://127.0.0.1:\(port)\(path)")!,
                         headers: [("Accept", "application/json")], timeout: .seconds(20))
    }

    @Test(.enabled(if: python != nil, "python3 is not installed: no local plain-HTTP server"))
    func fetchesBodiesAndStatuses() async throws {
        try await withHTTPServer { port in
            for transport in Self.transports {
                let ok = try await transport.send(Self.get(port, "/data.json"))
                #expect(ok.status == 200, "\(type(of: transport))")
                #expect(ok.body == Array(#"{"code":"000000"}"#.utf8))
                #expect(ok.header("content-type") == "application/json")
                let missing = try await transport.send(Self.get(port, "/nothing"))
                #expect(missing.status == 404)
            }
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed: no local plain-HTTP server"))
    func redirectsAreNeverFollowed() async throws {
        try await withHTTPServer { port in
            for transport in Self.transports {
                let response = try await transport.send(Self.get(port, "/sub"))
                #expect(response.status == 301, "\(type(of: transport))")
                #expect(response.header("Location") == "/sub/")
            }
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed: no local plain-HTTP server"))
    func refusedConnectionIsANetworkError() async throws {
        var closedPort = 0
        try await withHTTPServer { port in closedPort = port }
        for transport in Self.transports {
            let error = await clientError { try await transport.send(Self.get(closedPort, "/data.json")) }
            #expect(error?.kind == .network, "\(type(of: transport))")
            #expect(error?.message.contains("check winpower.base_url") == true)
        }
    }
}
