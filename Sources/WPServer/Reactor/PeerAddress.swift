/// A peer's address as the listeners write it (`ip:port`, `[ip6]:port`).
package enum PeerAddress {
    /// The address without its port: `ip` of `ip:port`, `ip6` of `[ip6]:port`; the text
    /// itself when it has no port.
    package static func host(of peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }
}
