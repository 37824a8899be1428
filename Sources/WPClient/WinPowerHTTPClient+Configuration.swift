public import FoundationEssentials
package import WPHTTPClient

extension WinPowerHTTPClient {
    /// Everything the client needs to reach one WinPower server, with the exporter's defaults.
    ///
    /// The executable maps its `winpower.*` settings onto this; embedders fill it directly.
    ///
    /// ```swift
    /// var configuration = WinPowerHTTPClient.Configuration(
    ///     baseURL: URL(string: "https://winpower.example.com:8081")!, username: "admin", password: secret)
    /// configuration.caFile = "/etc/wpexporter/winpower-ca.pem"
    /// ```
    public struct Configuration: Sendable, CustomStringConvertible {
        /// `winpower.base_url`: scheme, host, port and an optional path prefix; a trailing
        /// slash is fine.
        public var baseURL: URL
        /// `winpower.username`: the user the client logs in as.
        public var username: String
        /// Sent only in the login body; never logged or put in errors.
        public var password: String
        /// `winpower.timeout`: the overall budget of one ``WinPowerClient/fetchDevices()``.
        public var timeout: Duration = .seconds(30)
        /// `winpower.api_timeout`: the limit of each request.
        public var apiTimeout: Duration = .seconds(10)
        /// `winpower.skip_ssl_verify`: accept any certificate (HTTPS is still
        /// encrypted, but the server is not authenticated).
        public var skipSSLVerify = false
        /// `winpower.ca_file`: trust only this PEM bundle.
        public var caFile: String?
        /// `winpower.refresh_threshold`: renew the token this long before it expires (at most
        /// half its lifetime before).
        public var refreshThreshold: Duration = .seconds(300)
        /// Lifetime assumed when the token carries no usable lifetime claim (WinPower's own
        /// `tokenExpiredMinutes` is 30).
        public var defaultTokenLifetime: Duration = .seconds(1800)
        /// The page size requested; the server may use a smaller one.
        public var pageSize = 100
        /// `winpower.max_pages`: hard bound on pages per readout, so a lying server cannot make
        /// the client loop (1,000: 20,000 devices at the real server's 20 per page).
        public var maxPages = 1_000
        /// `winpower.max_devices`: devices kept per readout, whatever page size the server
        /// reports; the entries past it are skipped without being decoded and counted in
        /// ``DeviceReadout/devicesDropped``.
        public var maxDevices = 10_000
        /// `winpower.max_text_bytes`: the longest text field of a device kept (alias, model,
        /// alarm texts, …), in UTF-8 bytes; longer ones are cut (see `DeviceListDecoder/maxTextBytes`).
        public var maxTextBytes = DeviceListDecoder.defaultMaxTextBytes
        /// The area whose devices are listed (the root area includes all with sub-areas).
        public var areaId = "00000000-0000-0000-0000-000000000000"
        /// Whether the area's sub-areas are listed too.
        public var includeSubArea = true
        /// First delay after a rejected login; doubles per failure up to ``loginBackoffMax``.
        public var loginBackoffInitial: Duration = .seconds(1)
        /// The longest delay between two logins after rejected ones.
        public var loginBackoffMax: Duration = .seconds(300)
        /// The `User-Agent` header, e.g. `wpexporter/1.2.0`.
        public var userAgent = "wpexporter"

        /// Creates a configuration for the server at `baseURL` and the user `username`; the rest
        /// takes the defaults.
        public init(baseURL: URL, username: String, password: String) {
            self.baseURL = baseURL
            self.username = username
            self.password = password
        }

        /// A summary without the password.
        public var description: String {
            "WinPower client \(Self.redacted(baseURL)) timeout=\(timeout) api_timeout=\(apiTimeout) "
                + "skip_ssl_verify=\(skipSSLVerify) ca_file=\(caFile ?? "none") page_size=\(pageSize)"
                + " max_pages=\(maxPages) max_devices=\(maxDevices) max_text_bytes=\(maxTextBytes)"
        }

        /// `url` without user info, query or fragment: how pages, logs and errors name a
        /// WinPower server (the exporter's `target` too).
        package static func redacted(_ url: URL) -> String {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
            components.user = nil
            components.password = nil
            components.query = nil
            components.fragment = nil
            return components.string ?? "<url>"
        }

        /// The URL of `path` (starting with `/`) under ``baseURL``, keeping any path prefix.
        func url(path: String, query: String? = nil) -> URL? {
            guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else { return nil }
            var prefix = components.percentEncodedPath
            while prefix.hasSuffix("/") { prefix.removeLast() }
            components.percentEncodedPath = prefix + path
            components.percentEncodedQuery = query
            components.fragment = nil
            return components.url
        }
    }

    /// The transport a configuration needs: an ``HTTPClientTransport`` that skips certificate
    /// checks for ``Configuration/skipSSLVerify``, trusts only ``Configuration/caFile`` when
    /// set, and uses the system trust store otherwise.
    ///
    /// - Parameters:
    ///   - configuration: the server's settings.
    ///   - threadPool: threads shared by the clients of many servers; with one, this client runs
    ///     at most ``sharedPoolThreads`` exchanges on it at once. `nil`: threads of its own.
    package static func makeTransport(for configuration: Configuration,
                                     threadPool: HTTPClient.ThreadPool? = nil) -> any HTTPTransport {
        let tls: HTTPClientTransport.TLSVerification
        if configuration.skipSSLVerify {
            tls = .skip
        } else if let caFile = configuration.caFile, !caFile.isEmpty {
            tls = .trust(caFile: caFile)
        } else {
            tls = .system
        }
        return HTTPClientTransport(tls: tls, userAgent: configuration.userAgent, threadPool: threadPool,
                                   maxThreads: threadPool == nil ? 8 : sharedPoolThreads)
    }

    /// The most of a shared pool's threads one server's client uses at once: a collection
    /// sends one request at a time, the second thread serves a concurrent caller (a probe
    /// beside the scheduled collection).
    package static let sharedPoolThreads = 2
}
