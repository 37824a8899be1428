public import FoundationEssentials

/// Where the newest energy totals known to be on disk are (``FileEnergyStore/lastSavedTotals()``):
/// what a shutdown whose final save failed tells the operator, so the totals can be restored.
public enum SavedTotals: Sendable, Equatable, CustomStringConvertible {
    /// A state file holds them: the last one this process wrote (or loaded at startup), at its
    /// path or where its data directory was moved while running.
    case file(path: String, generation: UInt64, savedAt: Date?)
    /// The last state file written (or loaded) no longer exists: its data directory was
    /// deleted, or the file was removed. No saved totals remain.
    case gone(path: String, generation: UInt64)
    /// No state file was loaded at startup nor written since (a first start whose saves all
    /// failed).
    case none(dataDirectory: String)
    /// The store keeps its totals in memory only (``InMemoryEnergyStore``): none survive the
    /// process.
    case notPersistent

    /// A sentence for the operator: where the newest saved totals are, or that none remain.
    public var description: String {
        switch self {
        case .file(let path, let generation, let savedAt):
            let time = savedAt.map { ", saved \(FileEnergyStore.timestamp($0))" } ?? ""
            return "the last saved totals are in \(path) (generation \(generation)\(time))"
        case .gone(let path, let generation):
            return "no saved totals remain: the last state file written, \(path) (generation \(generation)), no longer exists"
        case .none(let dataDirectory):
            return "no totals were ever saved: \(dataDirectory) never held a state file"
        case .notPersistent:
            return "the totals were kept in memory only and end with the process"
        }
    }
}
