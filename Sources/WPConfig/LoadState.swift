/// The working state of one load: settings so far, problems and warnings.
struct LoadState {
    let inputs: ConfigurationInputs
    var settings: [String: ConfigSetting] = [:]
    var problems: [ConfigDiagnostic] = []
    var warnings: [ConfigDiagnostic] = []
    var filePath: String?
    /// Keys whose values the configuration file sets (for the permissions warning).
    var fileKeys: Set<String> = []
    /// The entries of the `servers` section, in file order (empty without one).
    var serverDrafts: [ServerDraft] = []
    /// `winpower.devices`, when the file has it.
    var winPowerDevices: DevicesDraft?
    /// `nut.ups`, when the file has it, and its rows for `check-config`.
    var nutUPS: [String: ExporterConfiguration.NUT.UPS] = [:]
    var nutUPSRows: [ServerSettings.Row] = []
    /// Where each `nut.ups.<id>.name` is set, by device id.
    var nutNameSources: [String: ConfigSource] = [:]
    /// The declared sections' secrets whose `<key>_file` could not be read.
    var unreadSecrets: Set<String> = []
    /// The entries of each list key of a declared section the file sets, by full key name.
    var listDrafts: [String: [ListEntryDraft]] = [:]

    /// The rows of the mappings (`winpower.devices`, `nut.ups`), keys in full.
    var mappingRows: [ServerSettings.Row] {
        (winPowerDevices?.rows ?? []).map { ServerSettings.Row(key: "winpower.devices." + $0.key, value: $0.value, source: $0.source) }
            + nutUPSRows + listRows
    }
    /// The configuration file could not be read or parsed: what it would have set is unknown,
    /// so "is required" problems would mislead (the key may well be in that file).
    var fileUnparsed = false
    /// The configuration file that was to be read but could not be (missing or unreadable).
    var unreadPath: String?

    /// The sections a configuration file may hold: every key's section and `servers`.
    var fileSections: [String] { inputs.schema.sectionNames + ["servers"] }

    init(inputs: ConfigurationInputs) { self.inputs = inputs }

    mutating func problem(_ key: String?, _ source: ConfigSource?, _ message: String) {
        problems.append(ConfigDiagnostic(key: key, source: source, message: message))
    }

    mutating func warning(_ key: String?, _ source: ConfigSource?, _ message: String) {
        warnings.append(ConfigDiagnostic(key: key, source: source, message: message))
    }

    mutating func applyDefaults() {
        for key in inputs.schema.keys {
            if let value = key.defaultValue { settings[key.name] = ConfigSetting(value: value, source: .defaultValue) }
        }
    }

    /// Parses `text` for `key` and records it, or records why it is not valid.
    mutating func set(_ key: ConfigKey, text: String, source: ConfigSource) {
        if let setting = parse(key, text: text, source: source) { settings[key.name] = setting }
    }

    /// Parses `text` for `key`, or records why it is not valid (named `shownAs`, the key's
    /// name by default) and returns nil.
    mutating func parse(_ key: ConfigKey, text: String, source: ConfigSource, shownAs: String? = nil) -> ConfigSetting? {
        switch ConfigValue.parse(text, as: key.type) {
        case .success(let value):
            return ConfigSetting(value: value, source: source)
        case .failure(let error):
            let shown = key.isSecret ? Secret.mask : "\"\(key.type == .url ? URLRedaction.redact(text) : text)\""
            problem(shownAs ?? key.name, source, "\(shown) \(error.reason)")
            return nil
        }
    }

    // MARK: File

    /// Records that the configuration file at `path` could not be read: its one problem stands
    /// for every setting it might hold.
    private mutating func unread(_ path: String) {
        unreadPath = path
        fileUnparsed = true
    }

    mutating func applyFile() {
        let text: String
        if let path = inputs.configPath {
            switch inputs.files.read(path) {
            case .success(let contents):
                text = contents
                filePath = path
            case .failure(.notFound):
                problem(nil, .flag("--config"), "configuration file \"\(path)\" does not exist")
                unread(path)
                return
            case .failure(.unreadable(let reason)):
                problem(nil, .flag("--config"), "configuration file \"\(path)\" cannot be read: \(reason)")
                unread(path)
                return
            }
        } else {
            var found: (String, String)?
            for path in inputs.searchPaths() {
                switch inputs.files.read(path) {
                case .success(let contents): found = (path, contents)
                case .failure(.notFound): continue
                case .failure(.unreadable(let reason)):
                    problem(nil, nil, "configuration file \"\(path)\" exists but cannot be read: \(reason)")
                    unread(path)
                    return
                }
                break
            }
            guard let (path, contents) = found else { return }
            filePath = path
            text = contents
            // A file later in the search order is never read: say so, or it silently loses.
            let later = inputs.searchPaths().drop { $0 != path }.dropFirst()
            for shadowed in later where (try? inputs.files.read(shadowed).get()) != nil {
                warning(nil, .file(path: shadowed, position: nil), "not read: \(path) comes first in the search order "
                        + "(\(inputs.searchPaths().joined(separator: ", "))); pass -c/--config to choose")
            }
        }
        guard let path = filePath else { return }
        let root: YAMLNode?
        do {
            root = try YAMLReader.parse(text, file: path)
        } catch {
            problems.append(ConfigDiagnostic(key: nil, source: .file(path: path, position: error.position),
                                             message: error.message))
            fileUnparsed = true
            return
        }
        guard let root else { return }
        guard let sections = root.entries else {
            if root.scalar?.isNull == true { return }
            problem(nil, .file(path: path, position: root.position),
                    "the configuration file must hold a mapping of sections (server:, winpower:, ...), found \(root.shapeName)")
            return
        }
        for section in sections {
            applySection(section, path: path)
        }
    }

    private mutating func applySection(_ section: YAMLNode.Entry, path: String) {
        let position = ConfigSource.file(path: path, position: section.keyPosition)
        if section.key == "servers" {
            applyServers(section.value, path: path)
            return
        }
        guard inputs.schema.sectionNames.contains(section.key) else {
            if inputs.schema.key(named: section.key) != nil {
                problem(section.key, position, "dotted keys are not supported in the file; nest the key under its section")
            } else {
                problem(nil, position, "unknown section \"\(section.key)\"; allowed: \(fileSections.joined(separator: ", "))"
                        + Suggestion.hint(section.key, fileSections))
            }
            return
        }
        if section.value.scalar?.isNull == true { return }
        guard let entries = section.value.entries else {
            problem(section.key, .file(path: path, position: section.value.position),
                    "must be a mapping of keys, found \(section.value.shapeName)")
            return
        }
        applyEntries(entries, under: section.key, path: path)
    }

    /// The keys of one mapping in the file, `prefix` naming it (`snmp`, `snmp.system`): a
    /// mapping whose dotted name starts keys of its own (`snmp.system.name`) is read as a
    /// group of them.
    private mutating func applyEntries(_ entries: [YAMLNode.Entry], under prefix: String, path: String) {
        for entry in entries {
            let name = prefix + "." + entry.key
            if let group = entry.value.entries, inputs.schema.keys.contains(where: { $0.name.hasPrefix(name + ".") }) {
                applyEntries(group, under: name, path: path)
                continue
            }
            if name == "winpower.devices" {
                winPowerDevices = parseDevices(entry.value, path: path, shown: name)
                continue
            }
            if name == "nut.ups" {
                parseNUTUPS(entry.value, path: path)
                continue
            }
            if let list = inputs.schema.list(named: name) {
                applyList(entry.value, list, path: path)
                continue
            }
            guard let key = inputs.schema.key(named: name) else {
                let alias = inputs.schema.keys.first { $0.flagAliases.contains("--" + name) }
                let hint = alias.map { "; did you mean \"\($0.name)\"?" }
                    ?? Suggestion.hint(name, inputs.schema.keys.map(\.name))
                problem(nil, .file(path: path, position: entry.keyPosition), "unknown key \"\(name)\"" + hint)
                continue
            }
            let valueSource = ConfigSource.file(path: path, position: entry.value.position)
            guard let scalar = entry.value.scalar else {
                problem(name, valueSource, "must be a single value (\(key.type.name)), found \(entry.value.shapeName)")
                continue
            }
            if scalar.isNull { continue }
            fileKeys.insert(name)
            set(key, text: scalar.text, source: valueSource)
        }
    }

    // MARK: Environment and flags

    mutating func applyEnvironment() {
        let prefix = ConfigKey.environmentPrefix
        let names = inputs.environment.keys.filter { $0.hasPrefix(prefix) }.sorted()
        let known = inputs.schema.keys.flatMap { [$0.environmentVariable] + $0.environmentAliases }
        for key in inputs.schema.keys {
            let present = ([key.environmentVariable] + key.environmentAliases).compactMap { name -> (String, String)? in
                guard let value = inputs.environment[name], !value.isEmpty else { return nil }
                return (name, value)
            }
            guard let (name, value) = present.first else { continue }
            for (other, otherValue) in present.dropFirst() where otherValue != value {
                warning(key.name, .environment(other), "ignored because \(name) is also set and takes precedence")
            }
            set(key, text: value, source: .environment(name))
        }
        let suffixes = known.map { String($0.dropFirst(prefix.count)) }
        for name in names where !known.contains(name) {
            let suggestion = Suggestion.closest(to: String(name.dropFirst(prefix.count)), in: suffixes)
            warning(nil, .environment(name), "unknown variable, ignored" + (suggestion.map { "; did you mean \(prefix)\($0)?" } ?? ""))
        }
    }

    mutating func applyFlags() {
        for flag in inputs.flags {
            guard let key = inputs.schema.key(forFlag: flag.name) else {
                problem(nil, .flag(flag.name), "unknown flag" + Suggestion.hint(flag.name, inputs.schema.allFlags, quote: false))
                continue
            }
            set(key, text: flag.value, source: .flag(flag.name))
        }
    }
}
