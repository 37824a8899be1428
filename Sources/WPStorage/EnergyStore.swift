/// Durable storage for the energy totals of every device.
///
/// Contract:
/// - ``save(_:)`` writes the whole state atomically: after it returns, a crash of the process
///   (or of the machine, for stores that claim durability) leaves either this state or a newer
///   one loadable; a crash during `save` leaves the previous state or this one, never a mix.
///   It is called at most once per collection cycle, so its cost must not grow with the number
///   of calls per device (one write for all devices).
/// - ``load()`` is called once at startup. It never returns a total that was not saved, and it
///   recovers what it can from damaged storage instead of failing: what happened is described
///   in the returned ``LoadedEnergyState``. It throws only when storage cannot be used at all.
/// - Both may be called from any thread; an implementation serialises its own I/O. They block
///   for the duration of the I/O (a file store waits for `fsync`).
public protocol EnergyStore: Sendable {
    /// Loads the last saved state, recovering from damage where possible.
    ///
    /// - Returns: the state and a report of where it came from.
    /// - Throws: ``StorageError`` when the storage cannot be read or repaired at all.
    func load() throws -> LoadedEnergyState

    /// Atomically replaces the stored state with `state`.
    ///
    /// - Parameter state: the full state (all devices). Its `generation` and `savedAt` are
    ///   assigned by the store, its `sections` are ``sections`` as they are now.
    /// - Throws: ``StorageError`` when the write did not complete; the previous state is intact.
    func save(_ state: EnergyState) throws

    /// What other components keep with the totals, each in a section of its own: filled by
    /// ``load()``, written by every ``save(_:)``.
    var sections: StateSections { get }

    /// Where the totals are kept, for `/health` and the logs: the data directory, or `memory`.
    var location: String { get }

    /// Where the newest saved totals are: what a shutdown whose final save failed tells.
    func lastSavedTotals() -> SavedTotals

    /// Releases what the store holds (a data directory's lock); later saves fail. Called once,
    /// when its owner stops.
    func close()
}

extension EnergyStore {
    /// `memory`: a store that names no place of its own keeps its totals in memory.
    public var location: String { "memory" }
    /// ``SavedTotals/notPersistent``: by default a store persists nothing a restart could find.
    public func lastSavedTotals() -> SavedTotals { .notPersistent }
    /// Does nothing: by default a store holds nothing to release.
    public func close() {}
}
