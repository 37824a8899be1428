import Foundation
import WPHTTPClient
import WPServer
import WPSimulator
import WPTestSupport

/// The issue of many WinPower servers that accept connections and never answer: while one
/// client per silent server has a request hanging, how long do trivial tasks on the Swift pool
/// and a healthy server's request take?
enum HTTPClientHungBench {
    static let scenarios: [Scenario] = [
        Scenario(name: "http-client.hung-servers",
                 summary: "6 clients' requests hang (2 s timeout) on a silent server: when do 1,000 trivial tasks and a healthy GET finish?") {
            try await hung(clients: 6, timeout: .seconds(2))
        },
    ]

    static func hung(clients: Int, timeout: Duration) async throws {
        // A listening socket nobody accepts from: the kernel completes each connection in the
        // backlog, so requests are written and then wait for an answer that never comes.
        let silent = try ReservedPort(mode: .silent)
        defer { silent.close() }
        guard let silentURL = URL(string: "http://127.0.0.1:\(silent.port)/api") else {
            throw HTTPClientError(.network, "cannot listen on 127.0.0.1")
        }
        let handler = HandlerFunction { _ in WPHTTPResponse(status: 200, body: Array("ok".utf8)) }
        try await withTestServer(handler) { port in
            guard let healthyURL = URL(string: "http://127.0.0.1:\(port)/api") else { return }
            let clock = ContinuousClock()
            let started = clock.now
            let hanging = (0..<clients).map { _ in
                Task { () -> Duration in
                    _ = try? await HTTPClient().send(HTTPClientRequest(url: silentURL, timeout: timeout))
                    return started.duration(to: clock.now)
                }
            }
            // Let every hanging request reach its blocking wait; all times are from their start.
            try await Task.sleep(for: .milliseconds(200))
            await withTaskGroup(of: Int.self) { group in
                for index in 0..<1000 { group.addTask { index & 7 } }
                _ = await group.reduce(0, +)
            }
            let trivial = started.duration(to: clock.now)
            let status = try await HTTPClient().send(HTTPClientRequest(url: healthyURL, timeout: .seconds(10))).status
            let healthy = started.duration(to: clock.now)
            var ended: [Duration] = []
            for task in hanging { ended.append(await task.value) }
            print("   after \(clients) requests started hanging (then a 200 ms pause): 1,000 trivial tasks done at "
                  + "\(ClientBench.ms(trivial)) ms, a healthy GET answered (HTTP \(status)) at \(ClientBench.ms(healthy)) ms; "
                  + "the hanging requests ended at \(ClientBench.ms(ended.max() ?? .zero)) ms (timeout \(ClientBench.ms(timeout)) ms)")
        }
    }
}
