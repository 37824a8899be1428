import Synchronization

/// An ``EnergyStore`` kept in memory: the exporter's `.memory` energy storage (totals start from
/// zero and end with the process, no data directory), and the tests' store for modules that
/// persist energy (the collector).
///
/// With `history` it records every saved state (tests; without it only the last is kept, so a
/// long-running process does not grow), can start from a given load result, and can be told to
/// fail the next saves or loads to exercise error paths.
///
/// ```swift
/// let store = InMemoryEnergyStore(initial: EnergyState(devices: ["ups-1": .init(joules: 3600)]))
/// store.failNextSaves(2)
/// ```
public final class InMemoryEnergyStore: EnergyStore {
    private struct State {
        var loaded: LoadedEnergyState
        var saved: [EnergyState] = []
        var loads = 0
        var keepsHistory = true
        var failingSaves = 0
        var saveError: StorageError?
        var loadError: StorageError?
    }

    private let state: Mutex<State>
    /// The other components' sections: filled by ``load()``, kept in every saved state.
    public let sections = StateSections()

    /// A store whose `load()` returns `initial` from the primary file (or a fresh state).
    public init(initial: EnergyState? = nil, history: Bool = true) {
        let loaded = initial.map { LoadedEnergyState(state: $0, source: .primary) }
            ?? LoadedEnergyState(state: EnergyState(), source: .fresh)
        state = Mutex(State(loaded: loaded, keepsHistory: history))
    }

    /// A store whose `load()` returns exactly `loaded` (e.g. a `.reset` source).
    public init(loaded: LoadedEnergyState) {
        state = Mutex(State(loaded: loaded))
    }

    /// The state the store starts from or last saved, and its sections; throws the error
    /// ``failLoads(with:)`` set.
    public func load() throws -> LoadedEnergyState {
        try state.withLock { state throws(StorageError) in
            state.loads += 1
            if let error = state.loadError { throw error }
            sections.reset(to: state.loaded.state.sections)
            return state.loaded
        }
    }

    /// Keeps `newState` with the next generation and the current sections; throws instead while
    /// ``failNextSaves(_:with:)`` says so.
    public func save(_ newState: EnergyState) throws {
        try state.withLock { state throws(StorageError) in
            if state.failingSaves > 0 {
                state.failingSaves -= 1
                throw state.saveError
                    ?? .system(operation: "save (injected failure)", path: "memory", errno: 5, message: "Input/output error")
            }
            var stamped = newState
            let (records, change, _) = sections.snapshot()
            stamped.sections = records
            stamped.generation = StoredDeviceEnergy.incremented(state.saved.last?.generation ?? state.loaded.state.generation)
            if !state.keepsHistory { state.saved.removeAll(keepingCapacity: true) }
            state.saved.append(stamped)
            state.loaded = LoadedEnergyState(state: stamped, source: .primary)
            sections.written(change)
        }
    }

    /// Makes the next `count` saves throw `error` (an I/O error by default).
    public func failNextSaves(_ count: Int, with error: StorageError? = nil) {
        state.withLock { state in
            state.failingSaves = count
            state.saveError = error
        }
    }

    /// Makes every following `load()` throw `error` (`nil` to stop).
    public func failLoads(with error: StorageError?) { state.withLock { $0.loadError = error } }

    /// Every successfully saved state, oldest first.
    public var savedStates: [EnergyState] { state.withLock { $0.saved } }

    /// The last successfully saved state.
    public var lastSaved: EnergyState? { state.withLock { $0.saved.last } }

    /// Nothing is stored anywhere but here.
    public var location: String { "memory" }

    /// ``SavedTotals/notPersistent``: nothing survives the process.
    public func lastSavedTotals() -> SavedTotals { .notPersistent }

    /// How many times `load()` was called.
    public var loadCount: Int { state.withLock { $0.loads } }
}
