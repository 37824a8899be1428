import WPFrontEnd
package import WPServer

/// The exporter's own HTTP listener (`server.*`): `/metrics` and every other endpoint
/// (``Endpoints``). Only ``Exporter/run(onListening:reloadRequests:until:)`` runs it; a service
/// that serves ``Exporter/router`` itself leaves it unbound.
package struct HTTPFrontEnd: FrontEnd {
    package let name = "the HTTP server"
    package let server: any Listener<ConnectionStatistics>

    package func run() async throws { try await server.run() }

    /// Returns once bound; a failure to bind is thrown as ``ExporterError/http(_:)``, naming
    /// `server.port` as a taken `nut.listen` or `snmp.listen` is named.
    package func ready() async throws {
        do {
            _ = try await server.waitUntilListening()
        } catch let error as ServerError {
            throw ExporterError.http(error)
        }
    }
}
