/// The keys of a shared ``EnergyMeter`` in a multi-server exporter.
///
/// A single-server exporter keys totals by device id alone. With several servers, the key of
/// device `d` of server `s` is `s + "\u{1F}" + d` (U+001F, the ASCII unit separator). Server
/// names are restricted to `[A-Za-z0-9_.-]`, so the first separator of a qualified key always
/// ends the server name and two (server, device) pairs never share a key, whatever the device
/// ids hold.
///
/// ```swift
/// EnergyKey.qualified(server: "building-a", device: "ups-1")   // "building-a\u{1F}ups-1"
/// EnergyKey.split("building-a\u{1F}ups-1")                     // ("building-a", "ups-1")
/// ```
package enum EnergyKey {
    /// The separator between server name and device id.
    package static let separator: Character = "\u{1F}"

    /// The key prefix of every device of `server`.
    package static func prefix(server: String) -> String { server + String(separator) }

    /// The key of `device` of `server`.
    package static func qualified(server: String, device: String) -> String { prefix(server: server) + device }

    /// The entries of `all` whose key starts with `prefix`, keyed without it, their values
    /// mapped by `value` (every entry when `prefix` is empty): one server's share of a map
    /// kept for all servers.
    package static func owned<Stored, Value>(_ all: [String: Stored], prefix: String,
                                            _ value: (Stored) -> Value) -> [String: Value] {
        guard !prefix.isEmpty else { return all.mapValues(value) }
        var own: [String: Value] = [:]
        for (key, stored) in all where key.hasPrefix(prefix) {
            own[String(key.dropFirst(prefix.count))] = value(stored)
        }
        return own
    }

    /// The server and device of a qualified key, `nil` for an unqualified one (a device id
    /// stored by a single-server exporter).
    package static func split(_ key: String) -> (server: String, device: String)? {
        guard let cut = key.firstIndex(of: separator) else { return nil }
        return (String(key[..<cut]), String(key[key.index(after: cut)...]))
    }
}
