/// Reads the `servers` section of the configuration file into ``ServerDraft``s.
extension LoadState {
    mutating func applyServers(_ section: YAMLNode, path: String) {
        func source(_ position: SourcePosition) -> ConfigSource { .file(path: path, position: position) }
        if section.scalar?.isNull == true { return }
        guard let items = section.items else {
            problem("servers", source(section.position),
                    "must be a sequence of server entries ('- name: ...'), found \(section.shapeName)")
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
        if node.scalar?.isNull == true { return }
        guard let entries = node.entries else {
            problem(draft.path("labels"), .file(path: path, position: node.position),
                    "must be a mapping of label names to values (site: north), found \(node.shapeName)")
            return
        }
        for entry in entries {
            let name = draft.path("labels." + entry.key)
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
            draft.labels.append((ServerEntry.Label(name: entry.key, value: scalar.text), valueSource))
        }
    }
}
