/// Per-phase readings of a multi-phase UPS: the `…1`/`…2`/`…3` keys of `realtime`.
///
/// Phase 1 of the quantities the seed exporter already knew (`inputVolt1`, `outputVolt1`,
/// `outputCurrent1`, `loadWatt1`, `loadVa1`) stays in ``RealtimeReadings``' named fields; this
/// holds phases 2 and 3 of those, and all three phases of the other per-phase quantities. No
/// storage is allocated for a single-phase device.
public struct PhaseReadings: Sendable, Equatable {
    /// A per-phase quantity, named by its WinPower key without the phase digit.
    public enum Quantity: String, CaseIterable, Sendable {
        /// `inputVolt…`: input voltage (V).
        case inputVolt
        /// `inputCurrent…`: input current (A).
        case inputCurrent
        /// `outputVolt…`: output voltage (V).
        case outputVolt
        /// `outputCurrent…`: output current (A).
        case outputCurrent
        /// `loadWatt…`: active power (W).
        case loadWatt
        /// `loadVa…`: apparent power (VA).
        case loadVa
    }

    /// The phases a UPS can have.
    public static let phases = 1...3

    /// `Quantity.allCases.count × 3` values, phase-major per quantity; empty until one is set.
    private var values: [Double?] = []

    /// Creates readings with no per-phase value.
    public init() {}

    /// Whether no per-phase value was sent.
    public var isEmpty: Bool { values.allSatisfy { $0 == nil } }

    /// The value of `quantity` on `phase` (1–3), `nil` when not sent.
    public subscript(quantity: Quantity, phase: Int) -> Double? {
        get {
            guard Self.phases.contains(phase), !values.isEmpty else { return nil }
            return values[Self.slot(quantity, phase)]
        }
        set {
            guard Self.phases.contains(phase) else { return }
            if values.isEmpty {
                guard newValue != nil else { return }
                values = Array(repeating: nil, count: Quantity.allCases.count * Self.phases.count)
            }
            values[Self.slot(quantity, phase)] = newValue
        }
    }

    /// Whether phase 2 or 3 of any quantity was sent.
    public var hasHigherPhases: Bool {
        !values.isEmpty && Quantity.allCases.contains { self[$0, 2] != nil || self[$0, 3] != nil }
    }

    private static func slot(_ quantity: Quantity, _ phase: Int) -> Int {
        (Quantity.allCases.firstIndex(of: quantity) ?? 0) * phases.count + phase - 1
    }
}

/// A numeric member of `realtime`, `config` or `setting` the decoder has no field for: passed
/// through as sent (the exporter's `winpower_device_reading`).
public struct ExtraReading: Sendable, Equatable {
    /// The object the member came from.
    public enum Section: String, Sendable, CaseIterable {
        /// `realtime`: live measurements and status codes.
        case realtime
        /// `config`: the ratings of the UPS.
        case config
        /// `setting`: the user settings of the UPS.
        case setting
    }

    /// The object the member came from.
    public var section: Section
    /// The member's name as sent (at most `DeviceListDecoder/longestExtraKey` bytes).
    public var key: String
    /// The finite number the value held (a JSON number or a string holding one).
    public var value: Double

    /// Creates the reading of member `key` of `section`, holding `value`.
    public init(section: Section, key: String, value: Double) {
        self.section = section
        self.key = key
        self.value = value
    }
}

/// One entry of `activeAlarms`, whatever its shape: a code string or number, or an object
/// with any of a code, a name, a message and an id.
public struct Alarm: Sendable, Equatable {
    /// The alarm's code: bounded, the same for every occurrence (`alarmCode`, `code`,
    /// `eventCode`, or the entry itself when it is a string or number).
    public var code: String?
    /// Its name (`alarmName`, `name`, `eventName`, `title`), or the known name of its code
    /// (``knownNames``) when the server sent none.
    public var name: String?
    /// Its text (`message`, `msg`, `alarmMessage`, `description`, `content`, `alarmDesc`).
    public var message: String?
    /// A per-occurrence id (`id`, `alarmId`, `eventId`): shown, never a label.
    public var id: String?

    /// Creates an alarm; without `name`, the known name of `code` (``knownNames``), if any.
    public init(code: String? = nil, name: String? = nil, message: String? = nil, id: String? = nil) {
        self.code = code
        self.name = name ?? code.flatMap { Self.knownNames[$0] }
        self.message = message
        self.id = id
    }

    /// Alarm codes whose meaning is known (from WinPower's own agents; not from the API's
    /// documentation, which has none).
    public static let knownNames: [String: String] = [
        "501": "BatteryTestInProgress",
    ]
}
