/// IANA cipher suite names (as Go and the exporter-toolkit spell them) mapped to OpenSSL's.
public enum TLSCipherSuites {
    /// Every TLS 1.2 suite accepted in ``WPTLSConfiguration/cipherSuites``, with its OpenSSL name.
    public static let openSSLNames: [String: String] = [
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": "ECDHE-ECDSA-AES128-GCM-SHA256",
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256": "ECDHE-RSA-AES128-GCM-SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384": "ECDHE-ECDSA-AES256-GCM-SHA384",
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384": "ECDHE-RSA-AES256-GCM-SHA384",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256": "ECDHE-ECDSA-CHACHA20-POLY1305",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256": "ECDHE-RSA-CHACHA20-POLY1305",
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA": "ECDHE-ECDSA-AES128-SHA",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA": "ECDHE-RSA-AES128-SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA": "ECDHE-ECDSA-AES256-SHA",
        "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA": "ECDHE-RSA-AES256-SHA",
        "TLS_RSA_WITH_AES_128_GCM_SHA256": "AES128-GCM-SHA256",
        "TLS_RSA_WITH_AES_256_GCM_SHA384": "AES256-GCM-SHA384",
        "TLS_RSA_WITH_AES_128_CBC_SHA": "AES128-SHA",
        "TLS_RSA_WITH_AES_256_CBC_SHA": "AES256-SHA",
    ]

    /// The OpenSSL cipher list for `names`, or the first unknown name.
    static func cipherList(_ names: [String]) -> Result<String?, TLSSetupError> {
        guard !names.isEmpty else { return .success(nil) }
        var list: [String] = []
        for name in names {
            guard let mapped = openSSLNames[name] else {
                return .failure(TLSSetupError("unknown cipher suite \"\(name)\""))
            }
            list.append(mapped)
        }
        return .success(list.joined(separator: ":"))
    }
}

/// Why a TLS context could not be built (file, key mismatch, library missing).
struct TLSSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
