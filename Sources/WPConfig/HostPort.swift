/// `host:port` as the configuration writes listeners and receivers (`nut.listen`,
/// `snmp.listen`, an SNMP trap receiver's `address`): one reading for all of them.
package enum HostPort {
    /// `text` split into host and port, or `nil` when it is not a valid address.
    ///
    /// - `[ip6]` or `[ip6]:port`: the brackets removed;
    /// - `host:port` (one colon), or `host` alone when there is a `defaultPort`;
    /// - an unbracketed IPv6 literal: without a default port (a port is required), its last
    ///   colon starts the port (`::1:3493`); with one, the whole is the host if `bareIPv6`
    ///   (`2001:db8::1`), else it is refused (the port would be ambiguous).
    ///
    /// - Parameters:
    ///   - defaultPort: the port when the text names none; `nil`: a port is required.
    ///   - ports: the valid ports.
    ///   - emptyHost: the host when the text names none (`:161`); `nil`: a host is required.
    package static func parse(_ text: String, defaultPort: Int?, ports: ClosedRange<Int> = 0...65535,
                              emptyHost: String? = "0.0.0.0", bareIPv6: Bool = false) -> (host: String, port: Int)? {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else {
            let colons = text.count { $0 == ":" }
            if colons > 1 && defaultPort != nil {
                guard bareIPv6 else { return nil }
                host = Substring(text)
            } else if let colon = text.lastIndex(of: ":") {
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
            } else {
                host = Substring(text)
            }
        }
        let port: Int
        if let portText {
            guard let value = Int(portText), ports.contains(value) else { return nil }
            port = value
        } else {
            guard let defaultPort else { return nil }
            port = defaultPort
        }
        if host.isEmpty {
            guard let emptyHost else { return nil }
            host = Substring(emptyHost)
        }
        guard !host.contains(" ") else { return nil }
        return (String(host), port)
    }
}
