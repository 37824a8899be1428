import WPText
import WPRuntime
import WPLogging

/// Reads and parses the previous exporter's files. Parsing is a pure function.
enum LegacyImport {
    /// Scans `directory` for `*.txt` files and merges valid ones into `state` (devices already in
    /// the state are kept and the file is reported as skipped).
    static func run(directory: String, into state: inout EnergyState) -> LegacyImportReport {
        var report = LegacyImportReport()
        let names: [String]
        do {
            names = try FileSystem.listDirectory(directory)
        } catch {
            report.skipped.append(.init(file: directory, reason: error.description))
            return report
        }
        for name in names.sorted() where name.hasSuffix(".txt") {
            let path = directory + "/" + name
            let deviceID = String(name.dropLast(4))
            guard !deviceID.isEmpty else {
                report.skipped.append(.init(file: path, reason: "empty device id in file name"))
                continue
            }
            let bytes: [UInt8]
            switch FileSystem.readFile(path, limit: FileSystem.smallFileLimit, followingLinks: true) {
            case .bytes(let content): bytes = content
            case .missing: continue
            case .failed(let error):
                report.skipped.append(.init(file: path, reason: error.description))
                continue
            }
            switch parse(bytes) {
            case .failure(let reason):
                report.skipped.append(.init(file: path, reason: reason.description))
            case .success(let (millis, wattHours)):
                if state.devices[deviceID] != nil {
                    report.skipped.append(.init(file: path, reason: "device '\(deviceID)' already has a stored total"))
                    continue
                }
                state.devices[deviceID] = StoredDeviceEnergy(joules: wattHours * 3600)
                report.imported.append(.init(deviceID: deviceID, wattHours: wattHours, updatedAtMillis: millis))
            }
        }
        return report
    }

    /// Why a legacy file was rejected.
    struct Rejection: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// Parses one file: exactly two non-empty lines (surrounding whitespace ignored), a positive
    /// integer timestamp and a finite energy ≥ 0.
    static func parse(_ bytes: [UInt8]) -> Result<(Int64, Double), Rejection> {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(Rejection(description: "not UTF-8 text"))
        }
        let lines = text.trimmingWhitespace()
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.trimming { $0.isBlank || $0 == "\r" } }
        guard lines.count == 2 else {
            return .failure(Rejection(description: "expected 2 lines (unix ms, Wh), found \(lines.count == 1 && lines[0].isEmpty ? 0 : lines.count)"))
        }
        guard let millis = Int64(lines[0]), millis > 0 else {
            return .failure(Rejection(description: "line 1: '\(lines[0].prefix(40))' is not a positive unix time in ms"))
        }
        guard let wattHours = Double(lines[1]), wattHours.isFinite else {
            return .failure(Rejection(description: "line 2: '\(lines[1].prefix(40))' is not a number of Wh"))
        }
        guard (wattHours * 3600).isFinite else {
            return .failure(Rejection(description: "line 2: energy \(lines[1].prefix(40)) Wh is out of range"))
        }
        guard wattHours >= 0 else {
            return .failure(Rejection(description: "line 2: energy \(lines[1]) Wh is negative"))
        }
        return .success((millis, wattHours))
    }
}
