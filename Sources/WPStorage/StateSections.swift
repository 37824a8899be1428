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
    private struct State {
        var sections: [String: [[String]]]
        /// Counts the changes; `written` is the count the last successful save wrote.
        var changes: UInt64 = 0
        var written: UInt64 = 0
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
        state.withLock { $0.sections[section] ?? [] }
    }

    /// Replaces the records of `section`; no records removes it. The next save writes them.
    ///
    /// - Returns: whether they changed.
    @discardableResult
    public func replace(_ section: String, with records: [[String]]) -> Bool {
        state.withLock { state in
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

    /// Every section and the change they are at, for a save to write (``written(_:)`` once done).
    func snapshot() -> (sections: [String: [[String]]], change: UInt64) {
        state.withLock { ($0.sections, $0.changes) }
    }

    /// Notes that a save wrote the sections as of `change`.
    func written(_ change: UInt64) {
        state.withLock { $0.written = max($0.written, change) }
    }

    /// Replaces every section (the store's load): as written.
    func reset(to loaded: [String: [[String]]]) {
        state.withLock { state in
            state.sections = loaded.filter { !$0.value.isEmpty }
            state.written = state.changes
        }
    }
}
