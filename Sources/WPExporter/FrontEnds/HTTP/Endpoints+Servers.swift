import WPText
import FoundationEssentials
import WPFrontEnd
package import WPCollector
import WPMetrics
package import WPServer
import WPRuntime

/// One configured server as the endpoints see it (multi-server exporters only).
package struct ServerView: Sendable {
    /// `servers[].name`.
    package var name: String
    /// `server` and the entry's static labels.
    package var labels: [SeriesLabel]
    /// The base URL without credentials.
    package var target: String
    /// The server's own snapshot (no server labels): what `/probe` serves.
    package var snapshot: @Sendable () -> MetricsSnapshot
    package var health: @Sendable () -> CollectorHealth
    /// The age of the last successful readout on the monotonic clock.
    package var sinceLastSuccess: @Sendable () -> Duration?
    package var stalenessWindow: Duration
}

extension Endpoints {
    /// `GET /probe?target=<name>`: one configured server's cached readings, without the
    /// server's labels (Prometheus adds them from `/targets`). Exactly one `target` naming a
    /// configured server and nothing else is accepted; anything else is a 400 naming the
    /// problem. Never contacts WinPower.
    package func probe(_ request: WPHTTPRequest, servers: [ServerView]) -> WPHTTPResponse {
        if let refusal = Self.refuseParameters(request, allowed: ["target"], usage: "/probe takes only target=<server name>") {
            return refusal
        }
        let items = request.queryItems
        let targets = items.map(\.value)
        guard targets.count == 1, let name = targets.first, !name.isEmpty else {
            return .text(targets.count > 1 ? "bad request: target given \(targets.count) times; give it once\n"
                                           : "bad request: target=<server name> is required\n", status: 400)
        }
        guard let server = servers.first(where: { $0.name == name }) else {
            return .text("bad request: unknown target \"\(Self.clipped(name))\"; configured servers: "
                         + servers.map(\.name).joined(separator: ", ") + "\n", status: 400)
        }
        let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
        let end: [UInt8] = format == .text ? [] : Array("# EOF\n".utf8)
        let snapshot = server.snapshot()
        guard let chunks = snapshot.chunks else {
            return cached(snapshot, format: format, request: request, tail: end)
        }
        // Built per request from the server's chunks (one pass over its lines; a server's
        // share of the exposition), so the exporter keeps no second copy of every server.
        let body = chunks.standalone(openMetrics: format != .text)
        let gzip = request.acceptsGzip
        let compressed = gzip ? MetricsSnapshot.gzipMember(of: body + end) : []
        var response = WPHTTPResponse(status: 200)
        response.headers.set(name: "Content-Type", value: format.contentType)
        response.headers.set(name: "Vary", value: "Accept, Accept-Encoding")
        if gzip && !compressed.isEmpty {
            response.headers.set(name: "Content-Encoding", value: "gzip")
            response.body = compressed
        } else {
            response.body = body
            response.bodySuffix = end
        }
        return response
    }

    /// `GET /targets`: Prometheus `http_sd_configs` JSON, one group per configured server, whose
    /// target is this exporter as the request's `Host` names it (400 when it is missing or not
    /// `host[:port]`), with `__metrics_path__="/probe"`, `__param_target` and the series labels.
    package func targets(_ request: WPHTTPRequest, servers: [ServerView]) -> WPHTTPResponse {
        if let refusal = Self.refuseParameters(request, allowed: [], usage: "/targets takes no parameters") {
            return refusal
        }
        guard let host = request.headers["Host"], Self.isValidHost(host) else {
            return .text("bad request: the Host header must be host[:port] to list this exporter's targets\n", status: 400)
        }
        let groups = servers.map { server in
            var labels = ["__metrics_path__": "/probe", "__param_target": server.name]
            for label in server.labels { labels[label.name] = label.value }
            return TargetGroup(targets: [host], labels: labels)
        }
        let body = JSONBody.bytes(groups, else: "[]") + [0x0A]
        return .json(body)
    }

    /// The one rule of `/probe` and `/targets` for query parameters: only the documented ones
    /// are accepted; any other parameter, and an empty one (`&&`, a trailing `&`), is a 400
    /// naming it. `nil` when the query passes.
    package static func refuseParameters(_ request: WPHTTPRequest, allowed: Set<String>, usage: String) -> WPHTTPResponse? {
        guard let query = request.query, !query.isEmpty else { return nil }
        if query.split(separator: "&", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return .text("bad request: empty query parameter (\"&&\" or a leading or trailing \"&\"); \(usage)\n", status: 400)
        }
        if let other = request.queryItems.first(where: { !allowed.contains($0.name) }) {
            return .text("bad request: unknown parameter \"\(clipped(other.name))\"; \(usage)\n", status: 400)
        }
        return nil
    }

    /// Whether `host` is `name[:port]` or `[ipv6][:port]`: letters, digits, `-`, `.`, `_`, a
    /// port of 1 to 5 digits, nothing else (no credentials, paths nor spaces).
    package static func isValidHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 255 else { return false }
        var name = Substring(host)
        var port: Substring?
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let inside = name[name.index(after: name.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
            let rest = name[name.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return false }
                port = rest.dropFirst()
            }
            name = inside
        } else {
            if let colon = name.firstIndex(of: ":") {
                port = name[name.index(after: colon)...]
                name = name[..<colon]
            }
            guard !name.isEmpty,
                  name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") })
            else { return false }
        }
        if let port {
            guard (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(port), (1...65535).contains(number) else { return false }
        }
        return true
    }

    /// At most 64 characters of client input, for error messages (control and bidirectional
    /// formatting characters replaced: ``DisplayText``).
    package static func clipped(_ text: String) -> String {
        let printable = DisplayText.sanitized(text)
        return printable.count > 64 ? String(printable.prefix(64)) + "…" : printable
    }

    /// Whether every server's first collection finished (successful or not); the names still
    /// waiting otherwise.
    package static func waitingServers(_ servers: [ServerView]) -> [String] {
        servers.filter { $0.health().lastFinished == nil }.map(\.name)
    }
}

/// One group of Prometheus' HTTP service discovery.
package struct TargetGroup: Codable, Sendable, Equatable {
    package var targets: [String]
    package var labels: [String: String]
}
