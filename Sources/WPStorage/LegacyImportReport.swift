/// What importing the previous exporter's per-device files did.
///
/// The previous (Go) exporter kept one file per device, `<device_id>.txt`, in its data
/// directory: line 1 the unix time of the last update in milliseconds, line 2 the cumulative
/// energy in Wh (written with `%f`). They are imported once, on the first start that finds no
/// import marker in the state, and left in place.
public struct LegacyImportReport: Sendable, Equatable {
    /// One imported device.
    public struct Imported: Sendable, Equatable {
        /// The device id, the file's name without `.txt`.
        public var deviceID: String
        /// The energy the file held, in Wh: the device's imported total.
        public var wattHours: Double
        /// The file's own timestamp (unix ms), informational.
        public var updatedAtMillis: Int64
    }

    /// One file that was not imported, and why.
    public struct Skipped: Sendable, Equatable {
        /// The file's path (the data directory's when it could not be listed).
        public var file: String
        /// Why it was not imported.
        public var reason: String
    }

    /// The devices imported.
    public var imported: [Imported]
    /// The files left out.
    public var skipped: [Skipped]

    /// Creates a report; by default of an import that found no file.
    public init(imported: [Imported] = [], skipped: [Skipped] = []) {
        self.imported = imported
        self.skipped = skipped
    }
}
