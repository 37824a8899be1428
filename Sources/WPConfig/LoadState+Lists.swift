/// Reads the list keys of declared sections (`notifications.receivers`) from the file: a
/// sequence of mappings, each holding the keys of one entry.
extension LoadState {
    /// The most entries one list key may hold.
    static let maxListEntries = 1_000
    /// The most words one list of words may hold.
    static let maxWords = 10_000

    /// One entry as read, with where each value came from.
    struct ListEntryDraft {
        var entry = ConfigListEntry()
        var source: ConfigSource
        /// Where each key of the entry is set, by key within it.
        var sources: [String: ConfigSource] = [:]
        /// The rows `check-config` shows, keys in full.
        var rows: [ServerSettings.Row] = []
        /// The secrets written in the configuration file itself (not read from a file), in full.
        var inlineSecrets: [String] = []
    }

    /// Reads `node`, the value of the list key `list` (named in full), into ``listDrafts``.
    mutating func applyList(_ node: YAMLNode, _ list: ConfigListKey, path: String) {
        func source(_ position: SourcePosition) -> ConfigSource { .file(path: path, position: position) }
        if node.scalar?.isNull == true { return }
        guard let items = node.items else {
            problem(list.name, source(node.position), "must be a sequence of entries ('- \(list.keys.first?.name ?? "name"): ...'), "
                    + "found \(node.shapeName)")
            return
        }
        guard items.count <= Self.maxListEntries else {
            problem(list.name, source(node.position), "lists \(items.count) entries; at most \(Self.maxListEntries)")
            return
        }
        var drafts: [ListEntryDraft] = []
        var malformed = false
        for (index, item) in items.enumerated() {
            let shown = "\(list.name)[\(index)]"
            var draft = ListEntryDraft(source: source(item.position))
            guard let entries = item.entries else {
                problem(shown, source(item.position),
                        "must be a mapping of \(list.entryKeyNames.joined(separator: ", ")), found \(item.shapeName)")
                malformed = true
                continue
            }
            for entry in entries {
                applyListKey(entry, list, to: &draft, shown: shown, path: path)
            }
            drafts.append(draft)
        }
        fileKeys.insert(list.name)
        // A list with an entry that is no mapping is not checked further: its entries' indices
        // would not be those of the file.
        if !malformed { listDrafts[list.name] = drafts }
    }

    private mutating func applyListKey(_ entry: YAMLNode.Entry, _ list: ConfigListKey, to draft: inout ListEntryDraft,
                                       shown: String, path: String) {
        let valueSource = ConfigSource.file(path: path, position: entry.value.position)
        let name = shown + "." + entry.key
        if let key = list.keys.first(where: { $0.fileKey == entry.key }) {
            guard let scalar = entry.value.scalar, !scalar.isNull else {
                problem(name, valueSource, "must be the path of a file holding the \(key.name), found \(entry.value.shapeName)")
                return
            }
            if draft.sources[key.name] != nil {
                problem(name, valueSource, "cannot be combined with \(shown).\(key.name); set only one")
                return
            }
            switch readPassword(scalar.text) {
            case .success(let secret):
                draft.entry.values[key.name] = secret.value
                draft.sources[key.name] = valueSource
                draft.rows.append(ServerSettings.Row(key: name, value: scalar.text, source: valueSource.description))
            case .failure(let reason):
                problem(name, valueSource, reason.reason)
            }
            return
        }
        guard let key = list.key(named: entry.key) else {
            problem(nil, .file(path: path, position: entry.keyPosition),
                    "unknown key \"\(name)\"; an entry holds \(list.entryKeyNames.joined(separator: ", "))"
                    + Suggestion.hint(entry.key, list.entryKeyNames))
            return
        }
        if draft.sources[key.name] != nil, let fileKey = key.fileKey {
            problem(name, valueSource, "cannot be combined with \(shown).\(fileKey); set only one")
            return
        }
        if key.isWords {
            if let words = readWords(entry.value, key, shown: name, path: path) {
                draft.entry.words[key.name] = words
                draft.sources[key.name] = valueSource
                draft.rows.append(ServerSettings.Row(key: name, value: "[" + words.joined(separator: ", ") + "]",
                                                     source: valueSource.description))
            }
            return
        }
        guard let scalar = entry.value.scalar else {
            problem(name, valueSource, "must be a single value (\(key.type.name)), found \(entry.value.shapeName)")
            return
        }
        if scalar.isNull { return }
        let configKey = ConfigKey(name, key.type, default: nil, key.summary)
        guard let setting = parse(configKey, text: scalar.text, source: valueSource) else { return }
        draft.entry.values[key.name] = setting.value
        draft.sources[key.name] = valueSource
        if key.type == .secret { draft.inlineSecrets.append(name) }
        draft.rows.append(ServerSettings.Row(key: name, value: setting.value.formatted(as: key.type), source: valueSource.description))
    }

    /// The words of a list of words: a sequence of single values, or one value alone; each of
    /// the key's type.
    private mutating func readWords(_ node: YAMLNode, _ key: ConfigListKey.EntryKey, shown: String, path: String) -> [String]? {
        let nodes: [YAMLNode]
        if let scalar = node.scalar {
            if scalar.isNull { return [] }
            nodes = [node]
        } else if let items = node.items {
            nodes = items
        } else {
            problem(shown, .file(path: path, position: node.position),
                    "must be a list of words ([a, b]), found \(node.shapeName)")
            return nil
        }
        guard nodes.count <= Self.maxWords else {
            problem(shown, .file(path: path, position: node.position), "lists \(nodes.count) words; at most \(Self.maxWords)")
            return nil
        }
        var words: [String] = []
        var valid = true
        for (index, item) in nodes.enumerated() {
            let source = ConfigSource.file(path: path, position: item.position)
            let name = node.items == nil ? shown : "\(shown)[\(index)]"
            guard let scalar = item.scalar, !scalar.isNull else {
                problem(name, source, "must be a single word, found \(item.shapeName)")
                valid = false
                continue
            }
            switch ConfigValue.parse(scalar.text, as: key.type) {
            case .success: words.append(scalar.text)
            case .failure(let error):
                var hint = ""
                if case .choice(let choices) = key.type { hint = Suggestion.hint(scalar.text, choices) }
                problem(name, source, "\"\(scalar.text)\" \(error.reason)" + hint)
                valid = false
            }
        }
        return valid ? words : nil
    }

    /// The lists read, by full key name, their entries' values only.
    func lists(of section: ConfigSchema.Section) -> [String: [ConfigListEntry]] {
        var lists: [String: [ConfigListEntry]] = [:]
        for list in section.lists {
            if let drafts = listDrafts[list.name], !drafts.isEmpty { lists[list.name] = drafts.map(\.entry) }
        }
        return lists
    }

    /// Where a list key, an entry or an entry's key (`notifications.receivers[1].url`) is set,
    /// the entry's own position for a key it does not set.
    func listSource(_ key: String) -> ConfigSource? {
        guard let bracket = key.firstIndex(of: "[") else { return nil }
        let list = String(key[..<bracket])
        guard let drafts = listDrafts[list] else { return nil }
        guard let close = key[bracket...].firstIndex(of: "]"),
              let index = Int(key[key.index(after: bracket)..<close]), drafts.indices.contains(index) else { return nil }
        let draft = drafts[index]
        let rest = key[key.index(after: close)...]
        guard rest.hasPrefix(".") else { return draft.source }
        let field = rest.dropFirst().prefix { $0 != "[" && $0 != "." }
        return draft.sources[String(field)] ?? draft.source
    }

    /// The `check-config` rows of every list read, in file order.
    var listRows: [ServerSettings.Row] {
        inputs.schema.sections.flatMap(\.lists).flatMap { list in (listDrafts[list.name] ?? []).flatMap(\.rows) }
    }
}
