package import WPConfig
import WPEnergy

/// Which stored energy totals each `servers` entry continues (docs/configuration.md, "Many
/// servers"; keys as ``WPEnergy/EnergyKey``).
///
/// - `energy_from: <old-name>` moves the totals stored under server `<old-name>` to the entry
///   (a rename).
/// - Totals of a `winpower`-only configuration (keys without a server) go to the entry with
///   `energy_from: winpower`, else to the first entry without `energy_from` whose resolved
///   `base_url` equals `winpower.base_url`.
/// - Anything else stays in the state as it is: never exported, never dropped. Unqualified
///   totals nobody adopts are reported at startup.
///
/// A move happens once: the next save persists the new keys, after which the rule finds
/// nothing left to move.
package struct EnergyMigration: Sendable, Equatable {
    /// The entry adopting unqualified keys, if any.
    package var adopter: String?
    /// Old server name → entry name.
    package var renames: [String: String]

    /// The moves given directly (a reload's renames, ``ReloadRenames``).
    package init(adopter: String?, renames: [String: String]) {
        self.adopter = adopter
        self.renames = renames
    }

    /// The rule applied to `configuration.servers` (empty for a `winpower`-only configuration).
    package init(_ configuration: ExporterConfiguration) {
        let servers = configuration.servers
        adopter = servers.first { $0.energyFrom == "winpower" }?.name
            ?? servers.first { entry in
                entry.energyFrom == nil && entry.winPower.baseURL != nil
                    && entry.winPower.baseURL == configuration.winPower.baseURL
            }?.name
        var renames: [String: String] = [:]
        for entry in servers {
            guard let from = entry.energyFrom, from != "winpower", from != entry.name, renames[from] == nil else { continue }
            renames[from] = entry.name
        }
        self.renames = renames
    }

    /// Old key → new key for the stored `keys`.
    ///
    /// - Parameter keys: the keys of the stored state.
    /// - Returns: the moves, and the unqualified keys no entry adopts (left as they are).
    package func moves(_ keys: [String]) -> (moves: [String: String], unadopted: Int) {
        var moves: [String: String] = [:]
        var unadopted = 0
        for key in keys {
            if let (server, device) = EnergyKey.split(key) {
                if let entry = renames[server] { moves[key] = EnergyKey.qualified(server: entry, device: device) }
            } else if let adopter {
                moves[key] = EnergyKey.qualified(server: adopter, device: key)
            } else {
                unadopted += 1
            }
        }
        return (moves, unadopted)
    }
}
