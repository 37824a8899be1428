import Foundation
import Synchronization
import WPMetrics
package import WPPushgateway

/// An in-process Pushgateway for ``PushgatewayClient`` tests: records every request and
/// answers from a script (status codes or thrown errors), defaulting to 200.
package final class FakePushgateway: PushTransport {
    /// One scripted answer.
    package enum Answer: Sendable {
        /// Respond with this status and body.
        case status(Int, String)
        /// Fail without a response.
        case failure(String)
    }

    /// A transport-level failure the fake throws.
    package struct ConnectionError: Error, CustomStringConvertible {
        package let description: String
    }

    private struct State {
        var script: [Answer]
        var requests: [PushRequest] = []
        var groups: [String: [UInt8]] = [:]
    }

    private let state: Mutex<State>

    /// Creates a fake answering with `script` in order, then 200 for everything else.
    package init(script: [Answer] = []) {
        state = Mutex(State(script: script))
    }

    /// Every request received, in order.
    package var requests: [PushRequest] { state.withLock { $0.requests } }

    /// The last body stored per group path (PUT/POST store, DELETE removes), like a gateway.
    package var groups: [String: [UInt8]] { state.withLock { $0.groups } }

    package func send(_ request: PushRequest) async throws -> PushResponse {
        let answer: Answer = state.withLock { state in
            state.requests.append(request)
            return state.script.isEmpty ? .status(200, "") : state.script.removeFirst()
        }
        switch answer {
        case .failure(let reason):
            throw ConnectionError(description: reason)
        case .status(let status, let body):
            if (200..<300).contains(status) {
                state.withLock { state in
                    let path = request.url.path
                    if request.method == "DELETE" { state.groups[path] = nil } else { state.groups[path] = request.body }
                }
            }
            return PushResponse(status: status, body: Array(body.utf8))
        }
    }
}
