import FoundationEssentials

/// The parts of a request URL the client uses, checked once before anything is sent.
struct RequestTarget: Sendable, Equatable {
    enum Scheme: Sendable, Equatable {
        case http
        case https
    }

    var scheme: Scheme
    /// The host as `getaddrinfo` takes it (IPv6 literals without brackets).
    var host: String
    var port: Int
    /// The origin-form target: the percent-encoded path (at least `/`) and query.
    var pathAndQuery: String
    /// The URL libcurl is given: scheme, host, port, path and query, without user info or
    /// fragment.
    var curlURL: String

    init(_ url: URL) throws(HTTPClientError) {
        switch url.scheme?.lowercased() {
        case "http": scheme = .http
        case "https": scheme = .https
        default:
            throw HTTPClientError(.unsupportedScheme, "unsupported URL scheme '\(Self.printableScheme(url))': "
                                  + "only http:// and https:// are supported")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw HTTPClientError(.invalidRequest, "the URL has no host")
        }
        guard host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            throw HTTPClientError(.invalidRequest, "the URL's host contains characters not allowed in a host name")
        }
        let defaultPort = scheme == .http ? 80 : 443
        let port = url.port ?? defaultPort
        guard (1...65535).contains(port) else {
            throw HTTPClientError(.invalidRequest, "the URL's port \(port) is out of range")
        }
        self.host = host
        self.port = port
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPClientError(.invalidRequest, "the URL's path or query contains spaces or control characters")
        }
        pathAndQuery = target
        let bracketed = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        curlURL = (scheme == .http ? "http://" : "https://") + bracketed + ":\(port)" + target
    }

    /// The `Host` header value: the host, and the port when it is not the scheme's default.
    var hostHeader: String

    /// Identifies connections that may be reused for this target.
    var poolKey: String { "\(host) \(port)" }

    /// `host:port` for error messages (never the path or query).
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The scheme for an error message, reduced to characters a scheme may hold.
    private static func printableScheme(_ url: URL) -> String {
        String((url.scheme ?? "").prefix(16).filter { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    }
}
