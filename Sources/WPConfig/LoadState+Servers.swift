/// Reads the `servers` section of the configuration file into ``ServerDraft``s.
extension LoadState {
    /// The most entries `servers:` may list (10,000): ten times the 1,000 servers
    /// docs/performance.md measures in one exporter; past it, exporters are sharded.
    static let maxServers = 10_000

    mutating func applyServers(_ section: YAMLNode, path: String) {
        func source(_ position: SourcePosition) -> ConfigSource { .file(path: path, position: position) }
        if section.scalar?.isNull == true { return }
        guard let items = section.items else {
            problem("servers", source(section.position),
                    "must be a sequence of server entries ('- name: ...'), found \(section.shapeName)")
            return
        }
        guard items.count <= Self.maxServers else {
            problem("servers", source(section.position),
                    "lists \(items.count) servers; one exporter serves at most \(Self.maxServers): "
                    + "shard them across several exporters, each with its own configuration")
            return
        }
        for (index, item) in items.enumerated() {
            var draft = ServerDraft(index: index, source: source(item.position))
            guard let entries = item.entries else {
                draft.isMalformed = true
                problem(draft.path, source(item.position),
                        "must be a mapping with name:, base_url:, ... (the keys of winpower), found \(item.shapeName)")
                serverDrafts.append(draft)
                continue
            }
            for entry in entries {
                applyServerKey(entry, to: &draft, path: path)
            }
            serverDrafts.append(draft)
        }
    }

    private mutating func applyServerKey(_ entry: YAMLNode.Entry, to draft: inout ServerDraft, path: String) {
        let valueSource = ConfigSource.file(path: path, position: entry.value.position)
        let allowed = ServerDraft.entryKeys + ServerDraft.winPowerKeys
        guard allowed.contains(entry.key) else {
            problem(nil, .file(path: path, position: entry.keyPosition),
                    "unknown key \"\(draft.path(entry.key))\"; an entry holds \(allowed.joined(separator: ", "))"
                    + Suggestion.hint(entry.key, allowed))
            return
        }
        if entry.key == "labels" {
            applyLabels(entry.value, to: &draft, path: path)
            return
        }
        if entry.key == "devices" {
            draft.devices = parseDevices(entry.value, path: path, shown: draft.path("devices"))
            return
        }
        guard let scalar = entry.value.scalar else {
            problem(draft.path(entry.key), valueSource, "must be a single value, found \(entry.value.shapeName)")
            return
        }
        if scalar.isNull { return }
        switch entry.key {
        case "name": draft.name = (scalar.text, valueSource)
        case "energy_from": draft.energyFrom = (scalar.text, valueSource)
        case "collection_interval":
            guard let key = ConfigKey.named("scheduler.collection_interval") else { return }
            draft.collectionInterval = parse(key, text: scalar.text, source: valueSource, shownAs: draft.path(entry.key))
        default:
            guard let key = ConfigKey.named("winpower." + entry.key) else { return }
            if let setting = parse(key, text: scalar.text, source: valueSource, shownAs: draft.path(entry.key)) {
                draft.own[key.name] = setting
                fileKeys.insert(key.name)
            }
        }
    }

    private mutating func applyLabels(_ node: YAMLNode, to draft: inout ServerDraft, path: String) {
        draft.labels += parseLabels(node, path: path, shown: draft.path("labels"))
    }
}
