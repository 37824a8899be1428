import FoundationEssentials
import WPEnergy

/// What a render needs besides the collector's state.
struct RenderContext: Sendable {
    /// Devices with live series, sorted by id.
    var live: [LiveDevice]
    /// The live devices that have extras (phases, passed-through readings, alarm texts), sorted by id.
    var extras: [Extras] = []

    /// One live device's extras and its labels.
    struct Extras: Sendable {
        var labels: [String]
        var extras: LiveDevice.Extras
    }
    var totals: [String: DeviceEnergy]
    var energyStateReset: Bool
    var persistFailures: Int
    /// Whether the last attempt to save the energy totals failed (it is still failing).
    var lastSaveFailed: Bool = false
    /// Implausible power readings refused per device since start.
    var rejectedSamples: [String: Int] = [:]
    var now: Date
    /// Whether the last success is within the staleness window (on the monotonic clock).
    var fresh: Bool
}
