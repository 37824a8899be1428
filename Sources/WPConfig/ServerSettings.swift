/// What `check-config` shows of one `servers` entry: every value with where it came from,
/// secrets masked and URL passwords redacted.
public struct ServerSettings: Sendable, Equatable {
    /// One shown value.
    public struct Row: Sendable, Equatable {
        /// The key within the entry (`base_url`, `labels.site`).
        public var key: String
        /// The value as text, masked when secret; `(unset)` when nothing sets it.
        public var value: String
        /// `file config.yaml:12:15`, `winpower (env WINPOWER_EXPORTER_WINPOWER_USERNAME)`,
        /// `scheduler (default)`, `default`.
        public var source: String
    }

    /// The entry's name.
    public var name: String
    /// Every key of the entry, in documentation order.
    public var rows: [Row]

    /// The rows of `draft`: own values with their file position, inherited ones with the
    /// section they come from and its source.
    static func make(_ draft: ServerDraft, settings: [String: ConfigSetting], winPowerDevices: DevicesDraft?) -> ServerSettings {
        var rows: [Row] = []
        if let (name, source) = draft.name { rows.append(Row(key: "name", value: name, source: source.description)) }
        for key in ConfigKey.all where key.section == "winpower" {
            let short = String(key.name.dropFirst("winpower.".count))
            guard let setting = draft.resolved[key.name] else {
                rows.append(Row(key: short, value: "(unset)", source: "default"))
                continue
            }
            let origin = draft.isOwn(key.name) ? setting.source.description : "winpower (\(setting.source))"
            rows.append(Row(key: short, value: setting.value.formatted(as: key.type), source: origin))
        }
        for (label, source) in draft.labels {
            rows.append(Row(key: "labels." + label.name, value: label.value, source: source.description))
        }
        if let interval = draft.collectionInterval {
            rows.append(Row(key: "collection_interval", value: interval.value.formatted(as: .duration),
                            source: interval.source.description))
        } else if let interval = settings["scheduler.collection_interval"] {
            rows.append(Row(key: "collection_interval", value: interval.value.formatted(as: .duration),
                            source: "scheduler (\(interval.source))"))
        }
        rows.append(Row(key: "energy_from", value: draft.energyFrom?.text ?? "(unset)",
                        source: draft.energyFrom?.source.description ?? "default"))
        if let own = draft.devices {
            rows += own.rows.map { Row(key: "devices." + $0.key, value: $0.value, source: $0.source) }
        } else if let inherited = winPowerDevices {
            rows += inherited.rows.map { Row(key: "devices." + $0.key, value: $0.value, source: "winpower (\($0.source))") }
        }
        return ServerSettings(name: draft.name?.text ?? "", rows: rows)
    }

    /// `servers[0] building-a` and one indented `key  value  source` line per row.
    static func table(_ servers: [ServerSettings]) -> String {
        let rows = servers.flatMap(\.rows)
        let keyWidth = rows.map(\.key.count).max() ?? 0
        let valueWidth = min(40, rows.map(\.value.count).max() ?? 0)
        func padded(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(0, width - text.count))
        }
        return servers.enumerated().map { index, server in
            (["servers[\(index)] \(server.name)"] + server.rows.map { row in
                "  " + padded(row.key, keyWidth) + "  " + padded(row.value, valueWidth) + "  " + row.source
            }).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}
