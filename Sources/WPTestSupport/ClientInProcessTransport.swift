import WPHTTPClient
import Foundation
package import WPClient
package import WPServer
import WPSimulator
import WPRuntime

/// An ``HTTPTransport`` that hands each request straight to an ``HTTPHandler`` — no sockets —
/// so client tests run the real client against the simulator deterministically.
///
/// The request timeout is enforced on the injected clock: a handler still busy when
/// `timeout` elapses (e.g. the simulator's `slow` fault sleeping on a ``ManualClock``) yields a
/// `timeout` error. ``SimulatorError/unreachable`` becomes a `network` error, any other thrown
/// error a 500 (as the real server does).
package struct InProcessTransport<C: Clock>: HTTPTransport where C.Duration == Duration {
    let handler: any HTTPHandler
    let clock: C

    package init(handler: any HTTPHandler, clock: C) {
        self.handler = handler
        self.clock = clock
    }

    package func send(_ request: TransportRequest) async throws -> TransportResponse {
        var target = request.url.path.isEmpty ? "/" : request.url.path
        if let query = request.url.query { target += "?" + query }
        var headers = WPHTTPHeaders()
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        let httpRequest = WPHTTPRequest(method: request.method, target: target, headers: headers, body: request.body,
                                      remoteAddress: "127.0.0.1:0")
        let handler = self.handler
        let clock = self.clock
        let timeout = request.timeout
        let response: WPHTTPResponse = try await withThrowingTaskGroup(of: WPHTTPResponse?.self) { group in
            group.addTask {
                do {
                    return try await handler.handle(httpRequest)
                } catch SimulatorError.unreachable {
                    throw ClientError(.network, "connection refused: check winpower.base_url and that WinPower is running")
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    return WPHTTPResponse.text("Internal Server Error", status: 500)
                }
            }
            group.addTask {
                try await clock.sleep(until: clock.now.advanced(by: timeout), tolerance: nil)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw ClientError(.timeout, "request timed out (winpower.api_timeout)")
            }
            return response
        }
        return TransportResponse(status: response.status, headers: response.headers.map { (name: $0.name, value: $0.value) },
                                 body: response.body)
    }
}
