public import FoundationEssentials

/// Everything the exporter persists about energy: one record per device plus bookkeeping.
///
/// This is the unit the store writes atomically, once per collection cycle, whatever the
/// number of devices.
public struct EnergyState: Sendable, Equatable {
    /// Totals per device id.
    public var devices: [String: StoredDeviceEnergy]
    /// Whether the previous exporter's `<device_id>.txt` files were already imported into this
    /// state (set once by the first start; migration never runs twice).
    public var legacyFilesImported: Bool
    /// Monotonically increasing save counter assigned by the store (0 for a state never saved).
    public var generation: UInt64
    /// Wall-clock time of the save that produced this state (informational only; nothing is
    /// computed from it, so wall-clock jumps cannot affect totals).
    public var savedAt: Date?
    /// The records other components keep in the file, by section (``StateSections``): as read
    /// by a load; a store's save writes its ``EnergyStore/sections`` instead.
    public var sections: [String: [[String]]]

    /// Creates a state; by default one never saved, with no device.
    public init(devices: [String: StoredDeviceEnergy] = [:], legacyFilesImported: Bool = false,
                generation: UInt64 = 0, savedAt: Date? = nil, sections: [String: [[String]]] = [:]) {
        self.devices = devices
        self.legacyFilesImported = legacyFilesImported
        self.generation = generation
        self.savedAt = savedAt
        self.sections = sections
    }
}
