public import WPConfig
import WPEnergy

/// The energy totals a reload moves to servers it adds: a new entry with `energy_from: <old>`
/// continues the server `<old>` (a rename), and a new entry that adopts the totals of a
/// `winpower`-only configuration (`ExporterConfiguration.singleServerEnergyAdopter`)
/// continues the unqualified keys, exactly as a restart with the new file would
/// (`EnergyMigration`).
///
/// `<old>` must be a server of the running configuration that the new file removes, or a
/// server whose totals are stored (one removed by an earlier reload or before a restart). A name
/// that is neither, one the new file still has, or one two new entries claim is refused, and
/// the whole reload with it (config validation already refuses the last two in a file).
/// An entry that is not new never moves anything: its `energy_from` did its work when it came.
public struct ReloadRenames: Sendable, Equatable {
    /// The entries that continue someone's totals (started only once they moved).
    package var targets: Set<String> = []
    /// The old server names whose totals move (their pipelines must have stopped first).
    package var sources: Set<String> = []
    /// The moves, as the startup rule states them.
    package var migration = EnergyMigration(adopter: nil, renames: [:])

    /// A reload that cannot rename as asked: the running configuration is kept.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// One `energy_from` that cannot be honoured.
        public struct Problem: Sendable, Equatable {
            /// The entry's index in `servers` (as configuration errors name entries).
            public var index: Int
            /// What is wrong with its `energy_from`.
            public var message: String
        }

        /// Every `energy_from` that cannot be honoured, in `servers` order.
        public var problems: [Problem]

        /// One line per problem, as configuration errors are written:
        /// `error: servers[3].energy_from: …`.
        public var description: String { located(in: nil) }

        /// ``description`` with each entry's `energy_from` position in the file (from
        /// `loaded`'s `check-config` rows) before the key: `error: config.yaml:12:18: servers[3].energy_from: …`.
        public func located(in loaded: LoadedConfiguration?) -> String {
            problems.map { problem in
                let source = loaded.flatMap { loaded in
                    loaded.servers.indices.contains(problem.index)
                        ? loaded.servers[problem.index].rows.first { $0.key == "energy_from" }?.source : nil
                }
                let location = source.flatMap { $0.hasPrefix("file ") ? String($0.dropFirst(5)) + ": " : nil } ?? ""
                return "error: \(location)servers[\(problem.index)].energy_from: \(problem.message)"
            }.joined(separator: "\n")
        }
    }

    package var isEmpty: Bool { targets.isEmpty }

    /// - Parameters:
    ///   - running: the names of the running servers.
    ///   - next: the configuration being applied.
    ///   - stored: the server names that hold totals in the meter now.
    /// - Throws: ``Refusal`` naming every `energy_from` that cannot be honoured.
    package init(running: Set<String>, next: ExporterConfiguration, stored: Set<String>) throws {
        let names = Set(next.servers.map(\.name))
        var problems: [Refusal.Problem] = []
        var claimed: [String: Int] = [:]
        for (index, entry) in next.servers.enumerated() where !running.contains(entry.name) {
            guard let from = next.energyOrigin(of: entry.name) else { continue }
            func refuse(_ message: String) { problems.append(Refusal.Problem(index: index, message: message)) }
            if from == ExporterConfiguration.singleServerEnergyName {
                migration.adopter = entry.name
                targets.insert(entry.name)
                // A running winpower-only server (no name) stops before its totals move.
                if running.contains("") { sources.insert("") }
            } else if let first = claimed[from] {
                refuse("\(from.debugDescription) is already continued by servers[\(first)]; each stored total goes to one entry")
            } else if names.contains(from) {
                refuse("\(from.debugDescription) is still configured; a rename removes the old entry in the same reload")
            } else if !running.contains(from) && !stored.contains(from) {
                refuse("\(from.debugDescription) names no running server and no stored energy totals; nothing to continue")
            } else {
                claimed[from] = index
                migration.renames[from] = entry.name
                sources.insert(from)
                targets.insert(entry.name)
            }
        }
        if !problems.isEmpty { throw Refusal(problems: problems) }
    }

    /// The server names of the meter's keys (unqualified keys have none).
    package static func servers(in keys: some Sequence<String>) -> Set<String> {
        Set(keys.compactMap { EnergyKey.split($0)?.server })
    }
}
