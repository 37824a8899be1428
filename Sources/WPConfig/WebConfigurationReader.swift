/// Walks a parsed web configuration file, collecting every problem with its position.
struct WebConfigurationReader {
    let file: String
    let files: FileAccess
    var problems: [ConfigDiagnostic] = []
    var warnings: [ConfigDiagnostic] = []

    init(file: String, files: FileAccess) {
        self.file = file
        self.files = files
    }

    /// Reads the YAML file at `path` (named by the configuration key `key` when it cannot be
    /// read) and hands its text to `parse`.
    static func load<T>(path: String, files: FileAccess, key: String,
                        parse: (String, String, FileAccess) throws(ConfigurationError) -> T) throws(ConfigurationError) -> T {
        switch files.read(path) {
        case .success(let text):
            return try parse(text, path, files)
        case .failure(let error):
            throw ConfigurationError(problems: [ConfigDiagnostic(key: key, source: nil,
                                                                 message: "\"\(path)\" " + LoadState.describe(error))])
        }
    }

    /// Parses `text` as YAML and walks it with `read`; every problem the walk found (or the
    /// YAML syntax error) is thrown with its position.
    static func parse<T>(_ text: String, file: String, files: FileAccess,
                         read: (YAMLNode?, inout WebConfigurationReader) -> T) throws(ConfigurationError) -> T {
        var reader = WebConfigurationReader(file: file, files: files)
        let root: YAMLNode?
        do {
            root = try YAMLReader.parse(text, file: file)
        } catch {
            throw ConfigurationError(problems: [ConfigDiagnostic(key: nil, source: .file(path: file, position: error.position),
                                                                 message: error.message)])
        }
        let result = read(root, &reader)
        guard reader.problems.isEmpty else {
            throw ConfigurationError(problems: reader.problems, warnings: reader.warnings)
        }
        return result
    }

    mutating func read(_ root: YAMLNode?) -> WebConfiguration {
        var configuration = WebConfiguration()
        guard let root else { return configuration }
        guard let entries = mapping(root, key: "(top level)") else { return configuration }
        for entry in entries {
            switch entry.key {
            case "tls_server_config":
                configuration.tlsServer = readTLS(entry.value, at: entry.keyPosition)
            case "basic_auth_users":
                configuration.basicAuthUsers = readUsers(entry.value)
            case "http_server_config":
                configuration.headers = readHTTP(entry.value)
            case "unauthenticated_paths":
                configuration.unauthenticatedPaths = readOpenPaths(entry.value)
            default:
                unknown(entry, in: nil, allowed: ["tls_server_config", "basic_auth_users", "http_server_config",
                                                  "unauthenticated_paths"])
            }
        }
        configuration.warnings = warnings
        return configuration
    }

    // MARK: Sections

    private mutating func readUsers(_ node: YAMLNode) -> [String: String] {
        guard let entries = mapping(node, key: "basic_auth_users") else { return [:] }
        var users: [String: String] = [:]
        for entry in entries {
            let key = "basic_auth_users.\(entry.key)"
            guard let hash = string(entry.value, key: key) else { continue }
            if entry.key.isEmpty || entry.key.contains(":") {
                problem(key, entry.keyPosition, "user names must be non-empty and contain no colon")
            } else if !Self.isBcrypt(hash) {
                // Never echo the value: it may be a plain-text password written by mistake.
                problem(key, entry.value.position,
                        "is not a bcrypt hash; expected $2a$, $2b$ or $2y$, a cost of 04–31 and 53 characters "
                            + "(generate one with `htpasswd -nBC 10 USER`)")
            } else {
                users[entry.key] = hash
            }
        }
        return users
    }

    private mutating func readHTTP(_ node: YAMLNode) -> [WebConfiguration.Header] {
        guard let entries = mapping(node, key: "http_server_config") else { return [] }
        var headers: [WebConfiguration.Header] = []
        for entry in entries {
            switch entry.key {
            case "headers":
                guard let fields = mapping(entry.value, key: "http_server_config.headers") else { continue }
                for field in fields {
                    let key = "http_server_config.headers.\(field.key)"
                    guard let value = string(field.value, key: key) else { continue }
                    if !Self.isToken(field.key) {
                        problem(key, field.keyPosition, "is not a valid header name")
                    } else if Self.reservedHeaders.contains(field.key.lowercased()) {
                        problem(key, field.keyPosition, "is set by the server and cannot be configured")
                    } else if value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) {
                        problem(key, field.value.position, "contains control characters")
                    } else {
                        headers.append(WebConfiguration.Header(name: field.key, value: value))
                    }
                }
            case "http2":
                _ = boolean(entry.value, key: "http_server_config.http2")
                warnings.append(diagnostic("http_server_config.http2", entry.keyPosition,
                                           "has no effect: the server speaks HTTP/1.1 only"))
            default:
                unknown(entry, in: "http_server_config", allowed: ["headers", "http2"])
            }
        }
        return headers
    }

    private mutating func readOpenPaths(_ node: YAMLNode) -> [String] {
        guard let items = node.items else {
            problem("unauthenticated_paths", node.position, "must be a sequence of paths, found \(node.shapeName)")
            return []
        }
        var paths: [String] = []
        for item in items {
            guard let path = string(item, key: "unauthenticated_paths") else { continue }
            if WebConfiguration.openablePaths.contains(path) {
                paths.append(path)
            } else {
                problem("unauthenticated_paths", item.position,
                        "\"\(path)\" cannot be opened; allowed: \(WebConfiguration.openablePaths.sorted().joined(separator: ", "))")
            }
        }
        return paths
    }

    // MARK: Helpers

    static let reservedHeaders: Set<String> = ["authorization", "connection", "content-encoding", "content-length",
                                               "content-type", "date", "transfer-encoding", "vary", "www-authenticate",
                                               "set-cookie"]

    static func isBcrypt(_ hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        guard bytes.count == 60, hash.hasPrefix("$2a$") || hash.hasPrefix("$2b$") || hash.hasPrefix("$2y$"),
              bytes[6] == UInt8(ascii: "$"), let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)),
              (4...31).contains(cost) else { return false }
        return bytes[7...].allSatisfy(alphabet.contains)
    }

    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    func diagnostic(_ key: String?, _ position: SourcePosition, _ message: String) -> ConfigDiagnostic {
        ConfigDiagnostic(key: key, source: .file(path: file, position: position), message: message)
    }

    mutating func problem(_ key: String?, _ position: SourcePosition, _ message: String) {
        problems.append(diagnostic(key, position, message))
    }

    mutating func unknown(_ entry: YAMLNode.Entry, in section: String?, allowed: [String]) {
        let key = section.map { "\($0).\(entry.key)" } ?? entry.key
        var message = "unknown key; allowed: \(allowed.joined(separator: ", "))"
        if let suggestion = Suggestion.closest(to: entry.key, in: allowed) { message = "unknown key; did you mean \"\(suggestion)\"? Allowed: \(allowed.joined(separator: ", "))" }
        problem(key, entry.keyPosition, message)
    }

    mutating func mapping(_ node: YAMLNode, key: String) -> [YAMLNode.Entry]? {
        if let scalar = node.scalar, scalar.isNull { return [] }
        guard let entries = node.entries else {
            problem(key, node.position, "must be a mapping, found \(node.shapeName)")
            return nil
        }
        return entries
    }

    mutating func string(_ node: YAMLNode, key: String) -> String? {
        guard let scalar = node.scalar, !scalar.isNull else {
            problem(key, node.position, "must be a string, found \(node.scalar == nil ? node.shapeName : "nothing")")
            return nil
        }
        return scalar.text
    }

    mutating func boolean(_ node: YAMLNode, key: String) -> Bool? {
        guard let scalar = node.scalar, case .bool(let value) = scalar.resolved else {
            problem(key, node.position, "must be true or false")
            return nil
        }
        return value
    }
}
