import Synchronization

/// What other components keep in the data directory beside the energy totals, each in a section
/// of its own: records of text fields, written with every save of the state file and read back
/// by the next start. The store keeps and writes them as given and knows nothing of their
/// meaning; the component that owns a section reads it at its start, replaces it when it
/// changes (in memory: never waits for I/O), and the next save writes it.
///
/// ```swift
/// let kept = store.sections.records("labels")               // [["ups-1", "rack-a"]]
/// store.sections.replace("labels", with: [["ups-1", "rack-b"]])
/// ```
public final class StateSections: Sendable {
    /// The most bytes (fields and separators) the sections no component claimed may hold in a
    /// save: 1 MiB. A section is claimed by reading it (``records(_:)``), replacing it or
    /// ``claim(_:)``; an unclaimed one (a newer version's, after a downgrade, or one a removed
    /// component left) is kept while they all fit, and the largest are dropped first past it,
    /// each named by the save (``FileEnergyStore`` warns): a 204 MB section nobody reads is no
    /// longer carried into every save.
    public static let unclaimedLimit = 1 << 20

    private struct State {
        var sections: [String: [[String]]]
        /// The sections a component read, replaced or claimed.
        var claimed: Set<String> = []
        /// The size of each loaded section no component claimed yet (only a load adds one, a
        /// claim removes it), so a save measures nothing.
        var unclaimedBytes: [String: Int] = [:]
        /// Counts the changes; `written` is the count the last successful save wrote.
        var changes: UInt64 = 0
        var written: UInt64 = 0

        mutating func claim(_ section: String) {
            claimed.insert(section)
            unclaimedBytes[section] = nil
        }
    }

    private let state: Mutex<State>

    /// The section the state file's version 3 holds (its `n` lines: a device key, a name, a
    /// description), for the component that owns it.
    package static var version3Section: String { StateFileFormat.version3Section }

    /// Creates an empty set of sections.
    public init() {
        state = Mutex(State(sections: [:]))
    }

    /// The records of `section` (none when it was never kept).
    public func records(_ section: String) -> [[String]] {
        state.withLock { state in
            state.claim(section)
            return state.sections[section] ?? []
        }
    }

    /// Claims `section` for a component that keeps it but has not read it yet (see
    /// ``unclaimedLimit``).
    public func claim(_ section: String) {
        state.withLock { $0.claim(section) }
    }

    /// Replaces the records of `section`; no records removes it. The next save writes them.
    ///
    /// - Returns: whether they changed.
    @discardableResult
    public func replace(_ section: String, with records: [[String]]) -> Bool {
        state.withLock { state in
            state.claim(section)
            guard (state.sections[section] ?? []) != records else { return false }
            state.sections[section] = records.isEmpty ? nil : records
            state.changes += 1
            return true
        }
    }

    /// Every section, as the next save writes them.
    public var all: [String: [[String]]] { state.withLock { $0.sections } }

    /// Whether a section changed since the last save that wrote them: the energy meter saves
    /// then, even when no total changed.
    public var hasUnwrittenChanges: Bool { state.withLock { $0.changes != $0.written } }

    /// Every section and the change they are at, for a save to write (``written(_:)`` once done),
    /// and the unclaimed sections dropped to keep them within ``unclaimedLimit`` (name, bytes).
    func snapshot() -> (sections: [String: [[String]]], change: UInt64, dropped: [(section: String, bytes: Int)]) {
        state.withLock { state in
            var unclaimed = state.unclaimedBytes.map { (section: $0.key, bytes: $0.value) }
            var total = unclaimed.reduce(0) { $0 + $1.bytes }
            var dropped: [(section: String, bytes: Int)] = []
            unclaimed.sort { $0.bytes > $1.bytes || ($0.bytes == $1.bytes && $0.section < $1.section) }
            for entry in unclaimed where total > Self.unclaimedLimit {
                state.sections[entry.section] = nil
                state.unclaimedBytes[entry.section] = nil
                total -= entry.bytes
                dropped.append(entry)
            }
            if !dropped.isEmpty { state.changes += 1 }
            return (state.sections, state.changes, dropped)
        }
    }

    /// The bytes a section's records take in the state file, about: each field and a separator.
    private static func size(_ records: [[String]]) -> Int {
        records.reduce(0) { total, record in record.reduce(total + 1) { $0 + $1.utf8.count + 1 } }
    }

    /// Notes that a save wrote the sections as of `change`.
    func written(_ change: UInt64) {
        state.withLock { $0.written = max($0.written, change) }
    }

    /// Replaces every section (the store's load): as written.
    func reset(to loaded: [String: [[String]]]) {
        state.withLock { state in
            state.sections = loaded.filter { !$0.value.isEmpty }
            state.unclaimedBytes = [:]
            for (section, records) in state.sections where !state.claimed.contains(section) {
                state.unclaimedBytes[section] = Self.size(records)
            }
            state.written = state.changes
        }
    }
}
