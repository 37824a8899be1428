/// What importing the previous exporter's per-device files did.
///
/// The previous (Go) exporter kept one file per device, `<device_id>.txt`, in its data
/// directory: line 1 the unix time of the last update in milliseconds, line 2 the cumulative
/// energy in Wh (written with `%f`). They are imported once, on the first start that finds no
/// import marker in the state, and left in place.
public struct LegacyImportReport: Sendable, Equatable {
    /// One imported device.
    public struct Imported: Sendable, Equatable {
        public var deviceID: String
        public var wattHours: Double
        /// The file's own timestamp (unix ms), informational.
        public var updatedAtMillis: Int64
    }

    /// One file that was not imported, and why.
    public struct Skipped: Sendable, Equatable {
        public var file: String
        public var reason: String
    }

    public var imported: [Imported]
    public var skipped: [Skipped]

    public init(imported: [Imported] = [], skipped: [Skipped] = []) {
        self.imported = imported
        self.skipped = skipped
    }
}
