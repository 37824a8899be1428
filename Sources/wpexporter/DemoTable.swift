import FoundationEssentials
import WPClient
import WPExporter
import WPLogging

/// The demo's table of devices, read out of a text exposition: a pure function of the bytes
/// `/metrics` serves, so what a person sees is what Prometheus scrapes.
enum DemoTable {
    /// One device's values, by metric name without the `winpower_device_` prefix.
    struct Row: Equatable {
        var id: String
        var name: String
        var values: [String: Double] = [:]

        /// line, battery, battery test, bypass, fault, disconnected… or `-` when nothing says.
        var state: String {
            if values["connected"] == 0 { return "disconnected" }
            if values["fault"] == 1 { return "fault" }
            if let code = values["mode"], let mode = OperatingMode(code: Int(code)) { return mode.displayName }
            if let code = values["mode"] { return "mode \(Int(code))" }
            if values["on_battery"] == 1 { return "battery" }
            return values["connected"] == 1 ? "connected" : "-"
        }

        /// The energy counted by the exporter, in kWh.
        var energyKilowattHours: Double? { values["energy_joules_total"].map { $0 / 3_600_000 } }
    }

    static let header = ["ID", "NAME", "STATE", "LOAD W", "LOAD %", "BATT %", "RUNTIME", "ENERGY kWh"]
    static let widths = [8, 16, 12, 7, 6, 6, 8, 10]

    /// The rows of every device in `exposition`, in the order they first appear; a device is
    /// (server, device id) when series carry a `server` label, its name then `server/name`.
    static func rows(_ exposition: [UInt8]) -> [Row] {
        var rows: [Row] = []
        var index: [String: Int] = [:]
        let prefix = "winpower_device_"
        for line in String(decoding: exposition, as: UTF8.self).split(separator: "\n") where line.hasPrefix(prefix) {
            guard let brace = line.firstIndex(of: "{"), let id = label("device_id", in: line),
                  let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let metric = String(line[line.index(line.startIndex, offsetBy: prefix.count)..<brace])
            let server = label("server", in: line)
            let key = server.map { $0 + "\u{1F}" + id } ?? id
            if index[key] == nil {
                index[key] = rows.count
                let name = label("device_name", in: line) ?? id
                rows.append(Row(id: id, name: server.map { "\($0)/\(name)" } ?? name))
            }
            if let at = index[key] { rows[at].values[metric] = value }
        }
        return rows
    }

    /// The table: a header line and one line per device, columns padded to fixed widths.
    static func render(_ exposition: [UInt8]) -> String {
        var text = line(header)
        let rows = rows(exposition)
        let ids = shortIDs(rows.map(\.id))
        for (row, id) in zip(rows, ids) {
            let values = row.values
            let name = String(row.name.map { $0.isNewline || $0 == "\t" ? " " : $0 })
            text += line([id, clipped(name, toColumns: widths[1]), row.state,
                          number(values["load_total_watts"], digits: 0), number(values["load_percent"], digits: 0),
                          number(values["battery_capacity"], digits: 0), duration(values["battery_remain_seconds"]),
                          number(row.energyKilowattHours, digits: 4)])
        }
        return text
    }

    /// Ids cut to the ID column: their first characters when those tell them apart, else their
    /// last ones after `…`, else whole.
    static func shortIDs(_ ids: [String]) -> [String] {
        let width = widths[0]
        let prefixes = ids.map { String($0.prefix(width)) }
        if Set(prefixes).count == Set(ids).count { return prefixes }
        let suffixes = ids.map { $0.count <= width ? $0 : "…" + $0.suffix(width - 1) }
        return Set(suffixes).count == Set(ids).count ? suffixes : ids
    }

    /// The energy of every device together, in kWh (nil when no device has any).
    static func totalEnergy(_ exposition: [UInt8]) -> (kilowattHours: Double, devices: Int)? {
        let energies = rows(exposition).compactMap(\.energyKilowattHours)
        return energies.isEmpty ? nil : (energies.reduce(0, +), energies.count)
    }

    static func line(_ cells: [String]) -> String {
        var text = ""
        for (column, cell) in cells.enumerated() {
            let used = columns(cell)
            let width = column < widths.count ? widths[column] : used
            let isLast = column == cells.count - 1
            text += isLast ? cell : cell + String(repeating: " ", count: max(1, width + 1 - used))
        }
        return text + "\n"
    }

    /// The terminal columns `text` takes: 2 for each wide character (CJK, Hangul, full-width
    /// forms, most emoji), 0 for combining marks and other zero-width characters, else 1.
    static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + columns($1) }
    }

    /// The columns of one character (grapheme cluster): those of its first scalar.
    static func columns(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        let wide: [ClosedRange<UInt32>] = [0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
                                           0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF,
                                           0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
                                           0x1F900...0x1F9FF, 0x20000...0x3FFFD]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// `text` cut to at most `width` columns, whole characters only.
    static func clipped(_ text: String, toColumns width: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let next = columns(character)
            if used + next > width { break }
            result.append(character)
            used += next
        }
        return result
    }

    static func number(_ value: Double?, digits: Int) -> String {
        guard let value, value.isFinite else { return "-" }
        return digits == 0 ? String(Int(value.rounded())) : String(fixed: value, fractionDigits: digits)
    }

    /// `1h05m`, `12m30s`, `45s`.
    static func duration(_ seconds: Double?) -> String {
        seconds.flatMap(String.init(compactDuration:)) ?? "-"
    }

    /// The unescaped value of label `name` in an exposition line.
    static func label(_ name: String, in line: Substring) -> String? {
        guard let start = line.firstRange(of: "{" + name + "=\"") ?? line.firstRange(of: "," + name + "=\"") else { return nil }
        var value = ""
        var escaped = false
        for character in line[start.upperBound...] {
            if escaped {
                value.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return value
            } else {
                value.append(character)
            }
        }
        return nil
    }
}
