import WPServer

/// The exporter's own HTTP listener (`server.*`): `/metrics` and every other endpoint
/// (``Endpoints``). Only ``Exporter/run(onListening:reloadRequests:until:)`` runs it; a service
/// that serves ``Exporter/router`` itself leaves it unbound.
package struct HTTPFrontEnd: FrontEnd {
    package let name = "the HTTP server"
    package let server: any Listener<ConnectionStatistics>

    package func run() async throws { try await server.run() }

    /// Returns once bound; a bind failure is thrown as it is (`ServerError.bind` names the
    /// address), as embedders of ``Exporter/run(onListening:reloadRequests:until:)`` expect.
    package func ready() async throws {
        _ = try await server.waitUntilListening()
    }
}
