/// What importing the previous exporter's per-device files did.
///
/// The previous (Go) exporter kept one file per device, `<device_id>.txt`, in its data
/// directory: line 1 the unix time of the last update in milliseconds, line 2 the cumulative
/// energy in Wh (written with `%f`). They are imported once, on the first start that finds no
/// import marker in the state, and left in place.
package struct LegacyImportReport: Sendable, Equatable {
    /// One imported device.
    package struct Imported: Sendable, Equatable {
        package var deviceID: String
        package var wattHours: Double
        /// The file's own timestamp (unix ms), informational.
        package var updatedAtMillis: Int64
    }

    /// One file that was not imported, and why.
    package struct Skipped: Sendable, Equatable {
        package var file: String
        package var reason: String
    }

    package var imported: [Imported]
    package var skipped: [Skipped]

    package init(imported: [Imported] = [], skipped: [Skipped] = []) {
        self.imported = imported
        self.skipped = skipped
    }
}
