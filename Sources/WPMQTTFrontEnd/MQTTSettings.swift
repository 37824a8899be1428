package import WPConfig

/// `mqtt.*`: every UPS published to an MQTT broker, with Home Assistant discovery, the section the
/// MQTT front end declares (docs/home-assistant.md).
package struct MQTTSettings: ConfigSectionSettings {
    /// `mqtt.url`: `mqtt://host:port`, or `mqtts://host:port` for TLS; unset: no MQTT.
    package var url: String?
    /// `mqtt.username`.
    package var username: String?
    /// `mqtt.password` (or `mqtt.password_file`).
    package var password: Secret?
    /// `mqtt.ca_file`: the PEM bundle the broker's certificate must chain to (`mqtts://`);
    /// unset: the system's trust store.
    package var caFile: String?
    /// `mqtt.cert_file`: the client certificate shown to the broker (`mqtts://`).
    package var certFile: String?
    /// `mqtt.key_file`: the client certificate's key.
    package var keyFile: String?
    /// `mqtt.skip_ssl_verify`: accept any certificate from the broker.
    package var skipSSLVerify = false
    /// `mqtt.client_id`.
    package var clientID = "wpexporter"
    /// `mqtt.topic_prefix`.
    package var topicPrefix = "wpexporter"
    /// `mqtt.discovery_prefix`.
    package var discoveryPrefix = "homeassistant"
    /// `mqtt.discovery`: whether Home Assistant discovery is published.
    package var discovery = true
    /// `mqtt.language`: the entities' names.
    package var language = "en"
    /// `mqtt.qos`.
    package var qos = 1
    /// `mqtt.min_interval`: the shortest time between two states of one UPS (a change of its
    /// mode is published at once).
    package var minInterval: Duration = .zero
    /// `mqtt.keep_alive`.
    package var keepAlive: Duration = .seconds(30)
    /// `mqtt.connect_timeout`: how long a connection (TCP, TLS, the broker's CONNACK) may take.
    package var connectTimeout: Duration = .seconds(10)
    /// `mqtt.queue_size`: messages kept while the broker is away.
    package var queueSize = 100_000

    /// MQTT off.
    package init() {}

    /// The keys of `mqtt.*`.
    package static let section = ConfigSection<MQTTSettings>("mqtt", [
        .text("url", \.url, "Broker to publish every UPS to, `mqtt://host:port` (port 1883 by default) or `mqtts://host:port` "
              + "for TLS (port 8883 by default); unset: no MQTT (docs/home-assistant.md)."),
        .text("username", \.username, "User name at the broker."),
        .secret("password", \.password, "Password at the broker.", file: true),
        .file("ca_file", \.caFile, "PEM bundle of certificates to trust for the broker's TLS certificate (`mqtts://`); "
              + "unset: the system's trust store."),
        .file("cert_file", \.certFile, "Client certificate (PEM, with its chain) shown to the broker over TLS; with `mqtt.key_file`."),
        .keyFile("key_file", \.keyFile, "Key of `mqtt.cert_file` (PEM)."),
        .boolean("skip_ssl_verify", \.skipSSLVerify, "Accept any TLS certificate from the broker (prefer `mqtt.ca_file`)."),
        .text("client_id", \.clientID, "Client identifier at the broker; each exporter its own."),
        .text("topic_prefix", \.topicPrefix, "First level of every state topic: `<prefix>/<server>/<device_id>/state`."),
        .text("discovery_prefix", \.discoveryPrefix, "Home Assistant's discovery prefix."),
        .boolean("discovery", \.discovery, "Publish Home Assistant discovery: one device per UPS with its entities."),
        .text("language", \.language, as: .choice(["en", "zh-CN"]), "Language of the entities' names."),
        .integer("qos", \.qos, in: 0...1, "QoS of the states and of discovery (retained either way)."),
        .duration("min_interval", \.minInterval,
                  "Shortest time between two states of one UPS; a change of mode is published at once. `0s`: after every collection."),
        .duration("keep_alive", \.keepAlive, "MQTT keep-alive: a ping after this long without a packet."),
        .duration("connect_timeout", \.connectTimeout,
                  "Longest a connection to the broker may take (TCP, TLS, the broker's answer to the login); then it is tried again with backoff."),
        .integer("queue_size", \.queueSize, in: 1_000...10_000_000, "Messages kept while the broker is away; past it the oldest go."),
    ])

    /// The broker's host and port and whether it speaks TLS (`mqtts://`), or why `url` names
    /// none.
    package static func broker(_ url: String) -> Result<(host: String, port: Int, tls: Bool), BrokerError> {
        let lower = url.lowercased()
        let tls = lower.hasPrefix("mqtts://") || lower.hasPrefix("ssl://")
        guard tls || lower.hasPrefix("mqtt://") || lower.hasPrefix("tcp://") else {
            return .failure(BrokerError("\"\(url)\" must start with mqtt:// or mqtts://"))
        }
        var rest = Substring(url.drop { $0 != "/" }.dropFirst(2))
        if let at = rest.lastIndex(of: "@") {
            return .failure(BrokerError("holds credentials (\(String(rest[..<at]).contains(":") ? "user:******" : "user")@); "
                                        + "set mqtt.username and mqtt.password instead"))
        }
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            guard rest[slash...].allSatisfy({ $0 == "/" }) else {
                return .failure(BrokerError("\"\(url)\" has a path or query; a broker is only mqtt://host:port"))
            }
            rest = rest[..<slash]
        }
        // host:port read as every listener and receiver of the configuration is (HostPort).
        guard let (host, port) = HostPort.parse(String(rest), defaultPort: tls ? 8883 : 1883, ports: 1...65_535, emptyHost: nil) else {
            let bracketed = rest.hasPrefix("[")
            let hostPart = bracketed ? rest.dropFirst().prefix { $0 != "]" } : rest.prefix { $0 != ":" }
            let reason = hostPart.isEmpty ? "has no host"
                : bracketed && !rest.contains("]") ? "has an unclosed ["
                : rest.dropFirst(hostPart.count + (bracketed ? 2 : 0)).hasPrefix(":") ? "has a bad port; must be 1–65535"
                : "is not mqtt://host:port or mqtts://host:port"
            return .failure(BrokerError("\"\(url)\" \(reason)"))
        }
        return .success((host, port, tls))
    }

    /// Why a broker URL cannot be used.
    package struct BrokerError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reason, quoting the URL.
        package var description: String
        init(_ description: String) { self.description = description }
    }

    /// Why `prefix` cannot start a topic, or nil: not empty, no `+` or `#` (wildcards of
    /// subscriptions), no NUL, no leading or trailing `/`, at most 200 bytes.
    static func topicProblem(_ prefix: String) -> String? {
        if prefix.isEmpty { return "must not be empty" }
        if prefix.contains("+") || prefix.contains("#") { return "\"\(prefix)\" holds + or #, MQTT's wildcards, which no topic may" }
        if prefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "holds a control character" }
        if prefix.hasPrefix("/") || prefix.hasSuffix("/") { return "\"\(prefix)\" must not start or end with /" }
        if prefix.utf8.count > 200 { return "is longer than 200 bytes" }
        return nil
    }

    /// The broker URL, the prefixes, the client id and the credentials together, each problem
    /// naming its key.
    package func problems() -> [ConfigDiagnostic] {
        var problems: [ConfigDiagnostic] = []
        func problem(_ key: String, _ message: String) {
            problems.append(ConfigDiagnostic(key: "mqtt." + key, source: nil, message: message))
        }
        guard let url, !url.isEmpty else { return [] }
        switch Self.broker(url) {
        case .failure(let error): problem("url", error.description)
        case .success(let broker) where !broker.tls:
            for (key, set) in [("ca_file", caFile != nil), ("cert_file", certFile != nil), ("key_file", keyFile != nil),
                               ("skip_ssl_verify", skipSSLVerify)] where set {
                problem(key, "applies to TLS, but mqtt.url is not mqtts://; use mqtts:// or remove it")
            }
        case .success: break
        }
        if (certFile == nil) != (keyFile == nil) {
            problem(certFile == nil ? "key_file" : "cert_file",
                    "is set without mqtt.\(certFile == nil ? "cert_file" : "key_file"); a client certificate needs both")
        }
        if skipSSLVerify, caFile != nil { problem("skip_ssl_verify", "is true while mqtt.ca_file is set; set only one") }
        if let reason = Self.topicProblem(topicPrefix) { problem("topic_prefix", reason) }
        if discovery, let reason = Self.topicProblem(discoveryPrefix) { problem("discovery_prefix", reason) }
        if clientID.isEmpty || clientID.utf8.count > 128 { problem("client_id", "must be 1–128 bytes") }
        if password != nil, username == nil { problem("password", "is set without mqtt.username; MQTT sends a password only with a user name") }
        if keepAlive < .seconds(1) || keepAlive > .seconds(65_535) { problem("keep_alive", "must be 1s–65535s") }
        if connectTimeout < .milliseconds(100) || connectTimeout > .seconds(300) { problem("connect_timeout", "must be 100ms–5m") }
        return problems
    }
}
