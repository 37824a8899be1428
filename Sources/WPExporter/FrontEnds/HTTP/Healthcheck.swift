import FoundationEssentials
public import WPConfig
package import WPHTTPClient

/// `wpexporter healthcheck`: asks the exporter that this configuration describes whether it is
/// alive, for a container `HEALTHCHECK` or any supervisor that runs a command.
///
/// It reads the configuration as `server` does (file, `WINPOWER_EXPORTER_*`, flags; the
/// WinPower keys are not checked, so it works beside `demo` too) and GETs `/-/healthy` on
/// `server.host`:`server.port`: loopback when the exporter listens on every interface, https
/// when the web configuration file sets TLS (the certificate is not verified: the check talks
/// to its own exporter), through the project's HTTP client. Exits 0 when the answer is 200, or
/// 401 from an exporter whose web configuration requires basic authentication on
/// `/-/healthy` (it answers; the check holds no password); 1 otherwise, with one line naming
/// the URL and what went wrong.
public enum Healthcheck {
    /// How long the whole exchange may take; below Docker's default 5 s health-check timeout
    /// and the shipped Dockerfile's `--timeout=5s`.
    public static let timeout: Duration = .seconds(4)

    /// What to ask and how to read the answer, from a loaded configuration.
    public struct Target: Sendable, Equatable {
        /// `http(s)://host:port/-/healthy`.
        public var url: String
        /// The web configuration asks for basic authentication on `/-/healthy`.
        public var authenticationRequired: Bool
    }

    /// The address to probe for a listen address: loopback for the wildcard addresses, the
    /// address itself otherwise (IPv6 literals in brackets).
    public static func probeHost(_ host: String) -> String {
        switch host {
        case "", "0.0.0.0", "*": return "127.0.0.1"
        case "::", "[::]": return "[::1]"
        default:
            if host.contains(":"), !host.hasPrefix("[") { return "[\(host)]" }
            return host
        }
    }

    /// The URL of `/-/healthy` on the exporter that `server` and the web configuration `web`
    /// describe, and whether it asks for basic authentication there.
    ///
    /// - Throws: ``HealthcheckFailure/portZero`` when the configuration leaves nothing to probe.
    public static func target(server: ExporterConfiguration.Server, web: WebConfiguration?) throws(HealthcheckFailure) -> Target {
        guard server.port != 0 else { throw .portZero }
        let scheme = web?.tlsServer == nil ? "http" : "https"
        let authenticated = !(web?.basicAuthUsers.isEmpty ?? true)
            && !(web?.unauthenticatedPaths.contains("/-/healthy") ?? false)
        return Target(url: "\(scheme)://\(probeHost(server.host)):\(server.port)/-/healthy",
                      authenticationRequired: authenticated)
    }

    /// One GET of the target, as `wpexporter healthcheck` makes it: certificates are not
    /// verified (the probe asks the exporter on this host whether it serves, not who it is).
    /// Returns the line to print on success.
    ///
    /// - Throws: ``HealthcheckFailure`` naming the URL and the answer or error.
    public static func probe(_ target: Target, timeout: Duration = Healthcheck.timeout) async throws(HealthcheckFailure) -> String {
        var configuration = HTTPClient.Configuration(tls: .skip, userAgent: "wpexporter-healthcheck")
        configuration.maxThreads = 1
        return try await probe(target, client: HTTPClient(configuration: configuration), timeout: timeout)
    }

    /// One GET of the target with `client`.
    package static func probe(_ target: Target, client: HTTPClient, timeout: Duration = Healthcheck.timeout)
        async throws(HealthcheckFailure) -> String {
        guard let url = URL(string: target.url) else { throw .unusableURL(target.url) }
        let response: HTTPClientResponse
        do {
            response = try await client.send(HTTPClientRequest(url: url, timeout: timeout))
        } catch {
            throw .noAnswer(url: target.url, error: "\(error)")
        }
        switch response.status {
        case 200:
            return "healthy: \(target.url)"
        case 401 where target.authenticationRequired:
            return "alive: \(target.url) requires basic authentication (list /-/healthy in unauthenticated_paths for a full check)"
        default:
            let body = String(decoding: response.body.prefix(200), as: UTF8.self)
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            throw .answered(url: target.url, status: response.status, firstLine: body)
        }
    }
}

/// Why `wpexporter healthcheck` failed: one line each, exit status 1.
public enum HealthcheckFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration is invalid (its first problem).
    case invalidConfiguration(String)
    /// `server.port` is 0: a free port chosen at start, nothing to probe.
    case portZero
    /// No URL can be formed from the listen address.
    case unusableURL(String)
    /// Nothing answered (refused, timed out, TLS failed).
    case noAnswer(url: String, error: String)
    /// The exporter answered with another status than 200 (or 401 where authentication is required).
    case answered(url: String, status: Int, firstLine: String)

    /// `healthcheck: …`: the one line the command prints, naming the URL and what went wrong.
    public var description: String {
        switch self {
        case .invalidConfiguration(let problem): "healthcheck: configuration is invalid: \(problem)"
        case .portZero: "healthcheck: server.port is 0 (a free port chosen at start); set the port the exporter listens on"
        case .unusableURL(let url): "healthcheck: cannot form a URL from \(url)"
        case .noAnswer(let url, let error): "healthcheck: no answer from \(url): \(error)"
        case .answered(let url, let status, let line): "healthcheck: \(url) answered \(status)" + (line.isEmpty ? "" : ": \(line)")
        }
    }
}
