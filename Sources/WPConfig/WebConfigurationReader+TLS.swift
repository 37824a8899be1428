import WPPOSIX
/// `tls_server_config`: keys, enumerations, and the certificate, key and CA files.
extension WebConfigurationReader {
    static let tlsKeys = ["cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version", "max_version",
                          "cipher_suites", "prefer_server_cipher_suites", "curve_preferences", "client_allowed_sans",
                          "cert", "key", "client_ca"]

    mutating func readTLS(_ node: YAMLNode, at position: SourcePosition) -> WebConfiguration.TLSServer? {
        guard let entries = mapping(node, key: "tls_server_config") else { return nil }
        var values: [String: (String, SourcePosition)] = [:]
        var cipherSuites: [String] = []
        var preferServer = true
        for entry in entries {
            let key = "tls_server_config.\(entry.key)"
            switch entry.key {
            case "cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version", "max_version":
                if let text = string(entry.value, key: key) { values[entry.key] = (text, entry.value.position) }
            case "cipher_suites":
                guard let items = entry.value.items else {
                    problem(key, entry.value.position, "must be a sequence, found \(entry.value.shapeName)")
                    continue
                }
                for item in items {
                    guard let name = string(item, key: key) else { continue }
                    if WebConfiguration.cipherSuiteNames.contains(name) {
                        cipherSuites.append(name)
                    } else {
                        problem(key, item.position, "unknown cipher suite \"\(name)\"; allowed: "
                                + WebConfiguration.cipherSuiteNames.sorted().joined(separator: ", "))
                    }
                }
            case "prefer_server_cipher_suites":
                preferServer = boolean(entry.value, key: key) ?? preferServer
            case "curve_preferences", "client_allowed_sans", "cert", "key", "client_ca":
                problem(key, entry.keyPosition, "is not supported by wpexporter; use cert_file, key_file and client_ca_file")
            default:
                unknown(entry, in: "tls_server_config", allowed: Array(Self.tlsKeys.prefix(8)))
            }
        }
        guard let (certificate, certificatePosition) = values["cert_file"] else {
            problem("tls_server_config.cert_file", position, "is required when tls_server_config is set")
            return nil
        }
        guard let (key, keyPosition) = values["key_file"] else {
            problem("tls_server_config.key_file", position, "is required when tls_server_config is set")
            return nil
        }
        var tls = WebConfiguration.TLSServer(certFile: resolve(certificate), keyFile: resolve(key))
        checkPEM(tls.certFile, key: "tls_server_config.cert_file", at: certificatePosition, marker: "CERTIFICATE")
        checkPEM(tls.keyFile, key: "tls_server_config.key_file", at: keyPosition, marker: "PRIVATE KEY")
        if let readable = files.readableByOthers(tls.keyFile) {
            warnings.append(diagnostic("tls_server_config.key_file", keyPosition,
                                       "\"\(tls.keyFile)\" holds a private key and is \(readable); run chmod 600 \(tls.keyFile)"))
        }
        if let (type, typePosition) = values["client_auth_type"] {
            if WebConfiguration.clientAuthTypes.contains(type) {
                tls.clientAuthType = type
            } else {
                problem("tls_server_config.client_auth_type", typePosition,
                        "\"\(type)\" is not a client auth type; allowed: " + WebConfiguration.clientAuthTypes.joined(separator: ", "))
            }
        }
        if let (ca, caPosition) = values["client_ca_file"] {
            tls.clientCAFile = resolve(ca)
            checkPEM(resolve(ca), key: "tls_server_config.client_ca_file", at: caPosition, marker: "CERTIFICATE")
        } else if tls.clientAuthType == "VerifyClientCertIfGiven" || tls.clientAuthType == "RequireAndVerifyClientCert" {
            problem("tls_server_config.client_ca_file", values["client_auth_type"]?.1 ?? position,
                    "is required when client_auth_type is \(tls.clientAuthType)")
        }
        tls.minVersion = version(values["min_version"], key: "min_version") ?? "TLS12"
        tls.maxVersion = version(values["max_version"], key: "max_version")
        if let max = tls.maxVersion, let minIndex = WebConfiguration.versions.firstIndex(of: tls.minVersion),
           let maxIndex = WebConfiguration.versions.firstIndex(of: max), maxIndex < minIndex {
            problem("tls_server_config.max_version", values["max_version"]?.1 ?? position,
                    "\(max) is older than min_version \(tls.minVersion)")
        }
        tls.cipherSuites = cipherSuites
        tls.preferServerCipherSuites = preferServer
        return tls
    }

    private mutating func version(_ value: (String, SourcePosition)?, key: String) -> String? {
        guard let (text, position) = value else { return nil }
        guard WebConfiguration.versions.contains(text) else {
            problem("tls_server_config.\(key)", position,
                    "\"\(text)\" is not a TLS version; allowed: " + WebConfiguration.versions.joined(separator: ", "))
            return nil
        }
        return text
    }

    /// Relative paths are relative to the web configuration file's directory (as in the toolkit).
    func resolve(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let directory = POSIXFile.parentDirectory(of: file)
        return directory.isEmpty ? path : directory + "/" + path
    }

    private mutating func checkPEM(_ path: String, key: String, at position: SourcePosition, marker: String) {
        switch files.read(path) {
        case .success(let text):
            if !text.contains("-----BEGIN") || !text.contains(marker) {
                problem(key, position, "\"\(path)\" is not a PEM file holding a \(marker.lowercased())")
            }
        case .failure(let error):
            problem(key, position, "\"\(path)\" " + LoadState.describe(error))
        }
    }
}
