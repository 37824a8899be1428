import WPHTTPClient
import Foundation
import Testing
import WPClient
import WPSimulator
import WPTestSupport

/// The ``ClientError`` thrown by `body`, or `nil` (recording an issue) when it succeeds or
/// throws something else.
func clientError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> ClientError? {
    do {
        _ = try await body()
        Issue.record("expected a ClientError, but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as ClientError {
        return error
    } catch {
        Issue.record("expected a ClientError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A transport that passes requests to another one and lets a test rewrite them or their
/// responses.
struct RewritingTransport: HTTPTransport {
    let base: any HTTPTransport
    var rewriteRequest: @Sendable (TransportRequest) -> TransportRequest = { $0 }
    var rewriteResponse: @Sendable (TransportRequest, TransportResponse) -> TransportResponse = { $1 }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let request = rewriteRequest(request)
        return rewriteResponse(request, try await base.send(request))
    }
}

/// A transport answering from a closure, for protocol cases the simulator does not produce.
struct StubTransport: HTTPTransport {
    let answer: @Sendable (TransportRequest) throws -> TransportResponse
    func send(_ request: TransportRequest) async throws -> TransportResponse { try answer(request) }

    /// A server whose login succeeds with `token` (calling `onLogin` each time) and which answers
    /// every other request with `list`, by default an empty device list.
    static func loggingIn(token: String, onLogin: @escaping @Sendable () -> Void = {},
                          list: String = #"{"total":0,"pageSize":20,"data":[],"code":"000000","msg":"OK"}"#) -> StubTransport {
        StubTransport { request in
            guard request.url.path.hasSuffix("/login") else { return TransportResponse(status: 200, body: Array(list.utf8)) }
            onLogin()
            return TransportResponse(status: 200,
                                     body: Array(#"{"code":"000000","message":"OK","data":{"token":"\#(token)"}}"#.utf8))
        }
    }

    /// This server, answering device-list requests with `list(page)` for the `current` page the
    /// request names.
    func answeringLists(_ list: @escaping @Sendable (Int) -> String) -> StubTransport {
        let login = answer
        return StubTransport { request in
            guard request.url.path.hasSuffix("/list") else { return try login(request) }
            let page = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?
                .queryItems?.first { $0.name == "current" }?.value.flatMap(Int.init) ?? 0
            return TransportResponse(status: 200, body: Array(list(page).utf8))
        }
    }
}

extension SimulatorHarness {
    /// Every secret the harness's client could leak: the password and each issued token.
    var secrets: [String] { [simulator.configuration.password] + simulator.issuedTokens }

    /// Fails the test when any secret (or an Authorization header) appears in `text`.
    func expectNoSecrets(in text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!text.contains(secret), "secret leaked", sourceLocation: sourceLocation)
        }
        #expect(!text.contains("Bearer"), sourceLocation: sourceLocation)
    }
}
