/// When the energy totals are written to the store: the one rule shared by every owner.
///
/// The store itself saves whenever it is asked; the caller that runs collection cycles (the
/// energy meter) asks this policy once per cycle. With `syncWrite` every cycle persists; without
/// it a cycle persists only when ``flushInterval`` has passed since the last successful save
/// (on a monotonic clock). Shutdown always persists, whatever the policy says. A failed save
/// does not count as a save, so the next cycle tries again.
public struct PersistencePolicy: Sendable, Equatable {
    /// Whether every cycle persists.
    public var syncWrite: Bool
    /// Without ``syncWrite``, the least time between two saves.
    public var flushInterval: Duration

    /// Creates a policy; by default every cycle persists.
    public init(syncWrite: Bool = true, flushInterval: Duration = .seconds(60)) {
        self.syncWrite = syncWrite
        self.flushInterval = flushInterval
    }

    /// Whether a cycle should persist.
    ///
    /// - Parameter elapsed: monotonic time since the last successful save in this process, or
    ///   `nil` when nothing was saved yet (the first cycle always persists).
    /// - Returns: `true` when the state should be saved now.
    public func shouldPersist(sinceLastSave elapsed: Duration?) -> Bool {
        if syncWrite { return true }
        guard let elapsed else { return true }
        return elapsed >= flushInterval
    }
}
