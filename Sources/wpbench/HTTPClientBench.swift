import Foundation
import WPClient
import WPHTTPClient
import WPServer
import WPSimulator
import WPTestSupport
import WPRuntime

/// Benchmark scenarios for the HTTP client area: WPHTTPClient over loopback against WPServer.
enum HTTPClientBench {
    static let scenarios: [Scenario] = [
        Scenario(name: "http-client.get-small", summary: "sequential GETs of 100 B on one kept-alive connection") {
            try await gets(bodyBytes: 100, requests: 5000)
        },
        Scenario(name: "http-client.get-1mb", summary: "sequential GETs of 1 MiB (Content-Length) on one kept-alive connection") {
            try await gets(bodyBytes: 1 << 20, requests: 200)
        },
        Scenario(name: "http-client.parallel-small", summary: "GETs of 100 B from 8 tasks at once on one client (8 threads)") {
            try await parallelGets(bodyBytes: 100, tasks: 8, requestsPerTask: 500)
        },
        Scenario(name: "http-client.fetch-1000", summary: "fetchDevices of 1,000 simulated devices (pages of 100) over loopback") {
            try await fetch(devices: 1000, iterations: 20)
        },
    ]

    static func gets(bodyBytes: Int, requests: Int) async throws {
        try await withDataServer(bodyBytes: bodyBytes) { client, request in
            let (best, cpu) = try await bestOfThree {
                for _ in 0..<requests { try await get(request, bodyBytes: bodyBytes, with: client) }
            }
            let seconds = best.inSeconds
            print("   \(requests) requests of \(bodyBytes) B: best \(ClientBench.ms(best)) ms, "
                  + String(format: "%.1f µs/request, %.0f MB/s, CPU (client and server) %.1f µs/request",
                           seconds / Double(requests) * 1e6, Double(bodyBytes * requests) / seconds / 1e6,
                           cpu / Double(requests) * 1e3))
        }
    }

    /// `tasks` tasks sending `requestsPerTask` requests each, all at once, through one client.
    static func parallelGets(bodyBytes: Int, tasks: Int, requestsPerTask: Int) async throws {
        try await withDataServer(bodyBytes: bodyBytes) { client, request in
            let (best, cpu) = try await bestOfThree {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<tasks {
                        group.addTask {
                            for _ in 0..<requestsPerTask { try await get(request, bodyBytes: bodyBytes, with: client) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            let requests = tasks * requestsPerTask
            print("   \(requests) requests of \(bodyBytes) B from \(tasks) tasks: best \(ClientBench.ms(best)) ms, "
                  + String(format: "%.0f requests/s, CPU (client and server) %.1f µs/request",
                           Double(requests) / best.inSeconds, cpu / Double(requests) * 1e3))
        }
    }

    /// A loopback server answering every request with `bodyBytes` bytes, a client, and the GET of
    /// its `/data`.
    static func withDataServer(bodyBytes: Int,
                               _ body: @escaping @Sendable (HTTPClient, HTTPClientRequest) async throws -> Void) async throws {
        let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: bodyBytes)
        try await withTestServer(HandlerFunction { _ in WPHTTPResponse(status: 200, body: bytes) }) { port in
            guard let url = URL(string: "http://127.0.0.1:\(port)/data") else { return }
            try await body(HTTPClient(), HTTPClientRequest(url: url, headers: [("Accept", "*/*")]))
        }
    }

    /// One GET, its body checked whole.
    static func get(_ request: HTTPClientRequest, bodyBytes: Int, with client: HTTPClient) async throws {
        let response = try await client.send(request)
        guard response.body.count == bodyBytes else { throw HTTPClientError(.network, "short body") }
    }

    /// The shortest of three runs of `work` and the least process CPU one took, milliseconds.
    static func bestOfThree(_ work: () async throws -> Void) async throws -> (Duration, Double) {
        let clock = ContinuousClock()
        var best = Duration.seconds(1000)
        var bestCPU = Double.infinity
        for _ in 0..<3 {
            let cpuBegan = CollectorBench.processCPUMilliseconds()
            best = min(best, try await clock.measure { try await work() })
            bestCPU = min(bestCPU, CollectorBench.processCPUMilliseconds() - cpuBegan)
        }
        return (best, bestCPU)
    }

    static func fetch(devices: Int, iterations: Int) async throws {
        let harness = SimulatorHarness(devices: devices) { $0.pageSizeCap = 100 }
        try await withTestServer(harness.simulator) { port in
            let client = harness.makeClient(transport: HTTPClientTransport()) { configuration in
                configuration.baseURL = URL(string: "http://127.0.0.1:\(port)\(harness.simulator.configuration.pathPrefix)")
                    ?? configuration.baseURL
                configuration.pageSize = 100
            }
            let clock = ContinuousClock()
            var best = Duration.seconds(1000)
            for _ in 0..<iterations {
                let elapsed = try await clock.measure {
                    let readout = try await client.fetchDevices()
                    guard readout.devices.count == devices else { throw ClientError(.decode, "expected \(devices) devices") }
                }
                best = min(best, elapsed)
            }
            print("   fetchDevices of \(devices) devices over HTTP: best \(ClientBench.ms(best)) ms (\(iterations) runs)")
        }
    }
}
