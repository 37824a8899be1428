import WPTime
import WPRuntime

/// A `devices` mapping as the file writes it: the selection, the rows `check-config` shows
/// (keys within `devices`), and where each static label was set.
struct DevicesDraft {
    var selection = DeviceSelection()
    var rows: [ServerSettings.Row] = []
    /// `(shown name, label name, source)` of every override label.
    var labels: [(shown: String, name: String, source: ConfigSource)] = []
}

/// Reads a `devices` mapping (of `winpower` or of a `servers` entry) into a ``DevicesDraft``.
extension LoadState {
    /// The keys a `devices` mapping may hold.
    static let deviceKeys = ["include", "exclude", "include_aliases", "exclude_aliases", "overrides", "battery"]

    /// Parses `node`, named `shown` in messages (`winpower.devices`, `servers[1].devices`),
    /// recording every problem.
    ///
    mutating func parseDevices(_ node: YAMLNode, path: String, shown: String) -> DevicesDraft {
        func source(_ position: SourcePosition) -> ConfigSource { .file(path: path, position: position) }
        var draft = DevicesDraft()
        if node.scalar?.isNull == true { return draft }
        guard let entries = node.entries else {
            problem(shown, source(node.position), "must be a mapping of \(Self.deviceKeys.joined(separator: ", ")), found \(node.shapeName)")
            return draft
        }
        var ids: [String: (key: String, source: ConfigSource)] = [:]
        for entry in entries {
            let name = shown + "." + entry.key
            switch entry.key {
            case "include", "exclude", "include_aliases", "exclude_aliases":
                guard let list = stringList(entry.value, path: path, shown: name) else { continue }
                for (text, position) in list {
                    if entry.key.hasSuffix("_aliases") {
                        if let reason = DeviceSelection.patternProblem(text) {
                            problem(name, source(position), "\(text.debugDescription) \(reason)")
                        }
                    } else if let earlier = ids[text] {
                        problem(name, source(position), "\(text.debugDescription) is already in \(earlier.key) (\(earlier.source.location)); "
                                + "a device id may be listed once")
                    } else {
                        ids[text] = (name, source(position))
                    }
                }
                let values = list.map(\.0)
                switch entry.key {
                case "include": draft.selection.include = values
                case "exclude": draft.selection.exclude = values
                case "include_aliases": draft.selection.includeAliases = values
                default: draft.selection.excludeAliases = values
                }
                draft.rows.append(ServerSettings.Row(key: entry.key, value: values.joined(separator: ", "),
                                                     source: source(entry.value.position).description))
            case "overrides":
                parseOverrides(entry.value, path: path, shown: name, into: &draft)
            case "battery":
                draft.selection.battery = parseBattery(entry.value, path: path, shown: name, row: "battery", into: &draft)
            default:
                problem(nil, source(entry.keyPosition), "unknown key \"\(name)\"; \(shown) holds \(Self.deviceKeys.joined(separator: ", "))"
                        + Suggestion.hint(entry.key, Self.deviceKeys))
            }
        }
        return draft
    }

    /// A sequence of non-empty single values, with their positions; nil (reported) otherwise.
    private mutating func stringList(_ node: YAMLNode, path: String, shown: String) -> [(String, SourcePosition)]? {
        if node.scalar?.isNull == true { return [] }
        guard let items = node.items else {
            problem(shown, .file(path: path, position: node.position), "must be a list ([a, b] or '- a' lines), found \(node.shapeName)")
            return nil
        }
        var result: [(String, SourcePosition)] = []
        for item in items {
            guard let scalar = item.scalar, !scalar.isNull, !scalar.text.isEmpty else {
                problem(shown, .file(path: path, position: item.position), "every item must be a non-empty single value, found \(item.shapeName)")
                continue
            }
            result.append((scalar.text, item.position))
        }
        return result
    }

    private mutating func parseOverrides(_ node: YAMLNode, path: String, shown: String, into draft: inout DevicesDraft) {
        func source(_ position: SourcePosition) -> ConfigSource { .file(path: path, position: position) }
        if node.scalar?.isNull == true { return }
        guard let devices = node.entries else {
            problem(shown, source(node.position), "must be a mapping of device ids to name: and labels:, found \(node.shapeName)")
            return
        }
        for device in devices {
            let prefix = shown + "." + device.key
            guard let keys = device.value.entries else {
                problem(prefix, source(device.value.position), "must be a mapping with name:, labels: and/or battery:, found \(device.value.shapeName)")
                continue
            }
            var override = DeviceSelection.Override()
            for key in keys {
                let name = prefix + "." + key.key
                switch key.key {
                case "name":
                    guard let scalar = key.value.scalar, !scalar.isNull, !scalar.text.isEmpty else {
                        problem(name, source(key.value.position), "must be a non-empty single value, found \(key.value.shapeName)")
                        continue
                    }
                    if scalar.text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) || scalar.text.count > 256 {
                        problem(name, source(key.value.position), "\(scalar.text.debugDescription) must be at most 256 characters without control characters")
                        continue
                    }
                    override.name = scalar.text
                    draft.rows.append(ServerSettings.Row(key: "overrides.\(device.key).name", value: scalar.text,
                                                   source: source(key.value.position).description))
                case "labels":
                    for (label, labelSource) in parseLabels(key.value, path: path, shown: name) {
                        override.labels.append(label)
                        draft.labels.append((name + "." + label.name, label.name, labelSource))
                        draft.rows.append(ServerSettings.Row(key: "overrides.\(device.key).labels.\(label.name)", value: label.value,
                                                       source: labelSource.description))
                    }
                case "battery":
                    override.battery = parseBattery(key.value, path: path, shown: name, row: "overrides.\(device.key).battery", into: &draft)
                default:
                    problem(nil, source(key.keyPosition), "unknown key \"\(name)\"; an override holds name, labels, battery"
                            + Suggestion.hint(key.key, ["name", "labels", "battery"]))
                }
            }
            draft.selection.overrides[device.key] = override
        }
    }

    /// A battery mapping (`{installed: 2024-03-01, life: 4y}`), each key checked, its rows
    /// (`<row>.installed`, `<row>.life`) added to the draft; nil when empty or wrong.
    private mutating func parseBattery(_ node: YAMLNode, path: String, shown: String, row: String,
                                       into draft: inout DevicesDraft) -> DeviceSelection.Battery? {
        func source(_ position: SourcePosition) -> ConfigSource { .file(path: path, position: position) }
        if node.scalar?.isNull == true { return nil }
        guard let entries = node.entries else {
            problem(shown, source(node.position), "must be a mapping with installed: and/or life:, found \(node.shapeName)")
            return nil
        }
        var battery = DeviceSelection.Battery()
        var valid = true
        for entry in entries {
            let name = shown + "." + entry.key
            guard entry.key == "installed" || entry.key == "life" else {
                problem(nil, source(entry.keyPosition), "unknown key \"\(name)\"; a battery holds installed, life"
                        + Suggestion.hint(entry.key, ["installed", "life"]))
                valid = false
                continue
            }
            guard let scalar = entry.value.scalar, !scalar.isNull, !scalar.text.isEmpty else {
                problem(name, source(entry.value.position), "must be a single value, found \(entry.value.shapeName)")
                valid = false
                continue
            }
            let text = scalar.text
            if entry.key == "installed" {
                guard let day = CivilDate.days(text) else {
                    problem(name, source(entry.value.position), "\(text.debugDescription) is not a day; write it YYYY-MM-DD, e.g. 2024-03-01")
                    valid = false
                    continue
                }
                if let today = inputs.today, day > today {
                    problem(name, source(entry.value.position), "\(text.debugDescription) is after today; "
                            + "the day the battery was installed (or last replaced) has passed")
                    valid = false
                    continue
                }
                battery.installed = text
            } else {
                guard let span = CalendarSpan(text), !span.isZero else {
                    problem(name, source(entry.value.position), "\(text.debugDescription) is not a battery life; write years, months and days "
                            + "as 4y, 3y6mo, 18mo or 1460d (at most 100y)")
                    valid = false
                    continue
                }
                battery.life = span.description
            }
            draft.rows.append(ServerSettings.Row(key: "\(row).\(entry.key)", value: text, source: source(entry.value.position).description))
        }
        return valid && (battery.installed != nil || battery.life != nil) ? battery : nil
    }

    /// A mapping of static labels (`site: north`), validated as `servers` labels are.
    mutating func parseLabels(_ node: YAMLNode, path: String, shown: String) -> [(ServerEntry.Label, ConfigSource)] {
        if node.scalar?.isNull == true { return [] }
        guard let entries = node.entries else {
            problem(shown, .file(path: path, position: node.position),
                    "must be a mapping of label names to values (site: north), found \(node.shapeName)")
            return []
        }
        var labels: [(ServerEntry.Label, ConfigSource)] = []
        for entry in entries {
            let name = shown + "." + entry.key
            let keySource = ConfigSource.file(path: path, position: entry.keyPosition)
            let valueSource = ConfigSource.file(path: path, position: entry.value.position)
            if let reason = ServerDraft.labelNameProblem(entry.key) {
                problem(name, keySource, "\(entry.key.debugDescription) \(reason)")
                continue
            }
            guard let scalar = entry.value.scalar else {
                problem(name, valueSource, "must be a single value, found \(entry.value.shapeName)")
                continue
            }
            guard !scalar.isNull, !scalar.text.isEmpty else {
                problem(name, valueSource, "must not be empty; Prometheus treats an empty label as no label")
                continue
            }
            labels.append((ServerEntry.Label(name: entry.key, value: scalar.text), valueSource))
        }
        return labels
    }
}

/// Reads `nut.ups`: per device id, a NUT name and low-battery thresholds.
extension LoadState {
    static let nutUPSKeys = ["name", "battery_charge_low", "battery_runtime_low"]

    mutating func parseNUTUPS(_ node: YAMLNode, path: String) {
        func source(_ position: SourcePosition) -> ConfigSource { .file(path: path, position: position) }
        if node.scalar?.isNull == true { return }
        guard let devices = node.entries else {
            problem("nut.ups", source(node.position),
                    "must be a mapping of device ids to name:, battery_charge_low:, battery_runtime_low:, found \(node.shapeName)")
            return
        }
        var names: [String: (shown: String, source: ConfigSource)] = [:]
        for device in devices {
            let prefix = "nut.ups." + device.key
            guard let keys = device.value.entries else {
                problem(prefix, source(device.value.position), "must be a mapping with \(Self.nutUPSKeys.joined(separator: ", ")), "
                        + "found \(device.value.shapeName)")
                continue
            }
            var ups = ExporterConfiguration.NUT.UPS()
            for key in keys {
                let name = prefix + "." + key.key
                let valueSource = source(key.value.position)
                guard Self.nutUPSKeys.contains(key.key) else {
                    problem(nil, source(key.keyPosition), "unknown key \"\(name)\"; a UPS holds \(Self.nutUPSKeys.joined(separator: ", "))"
                            + Suggestion.hint(key.key, Self.nutUPSKeys))
                    continue
                }
                guard let scalar = key.value.scalar, !scalar.isNull else {
                    problem(name, valueSource, "must be a single value, found \(key.value.shapeName)")
                    continue
                }
                let keyType = key.key == "name" ? ConfigValueType.string
                    : key.key == "battery_charge_low" ? .integer(0...100) : .duration
                guard let setting = parse(ConfigKey(name, keyType, default: nil, ""), text: scalar.text, source: valueSource) else {
                    continue
                }
                switch (key.key, setting.value) {
                case ("name", .string(let text)):
                    if let reason = Self.nutNameProblem(text) {
                        problem(name, valueSource, "\(text.debugDescription) \(reason)")
                    } else if let earlier = names[text.lowercased()] {
                        problem(name, valueSource, "\(text.debugDescription) is already the name of \(earlier.shown) "
                                + "(\(earlier.source.location)); NUT names are unique, in any case")
                    } else {
                        names[text.lowercased()] = (name, valueSource)
                        ups.name = text
                        nutNameSources[device.key] = valueSource
                    }
                case ("battery_charge_low", .integer(let percent)):
                    guard (0...100).contains(percent) else {
                        problem(name, valueSource, "\(percent) is out of range; must be 0–100")
                        continue
                    }
                    ups.batteryChargeLow = percent
                case ("battery_runtime_low", .duration(let runtime)):
                    if runtime < .zero || runtime > .seconds(86_400) {
                        problem(name, valueSource, "\(DurationText.format(runtime)) must be between 0s and 24h")
                        continue
                    }
                    ups.batteryRuntimeLow = runtime
                default:
                    continue
                }
                nutUPSRows.append(ServerSettings.Row(key: name, value: setting.value.formatted(as: keyType),
                                                     source: valueSource.description))
            }
            nutUPS[device.key] = ups
        }
    }

    /// Why `name` cannot be a NUT UPS name: what upsc, upsmon and the NAS boxes accept.
    static func nutNameProblem(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first, first != "-", first != ".", name.unicodeScalars.count <= 32,
              name.unicodeScalars.allSatisfy(ServerDraft.nameCharacters.contains) else {
            return "must be 1 to 32 characters from A-Z, a-z, 0-9, '_', '.' and '-', not starting with '-' or '.'"
        }
        return nil
    }
}
