/// One entry of a list key as a configuration holds it (`notifications.receivers[0]`): its
/// values by key within the entry.
public struct ConfigListEntry: Sendable, Hashable {
    /// Single values (`url`, `secret`), by key within the entry.
    public var values: [String: ConfigValue]
    /// Lists of words (`events`), by key within the entry.
    public var words: [String: [String]]

    /// An entry of these values.
    public init(values: [String: ConfigValue] = [:], words: [String: [String]] = [:]) {
        self.values = values
        self.words = words
    }
}

/// A key of a declared section that holds a list of entries (``ConfigListEntrySettings``):
/// what the loader reads from each entry and what the reference documents.
public struct ConfigListKey: Sendable {
    /// One key of an entry.
    public struct EntryKey: Sendable {
        /// Its name within the entry (`url`).
        public let name: String
        /// The type of its value, or of each word of a list of words.
        public let type: ConfigValueType
        /// Whether it holds a list of words (`events: [on_battery, fault]`).
        public let isWords: Bool
        /// One line of documentation.
        public let summary: String
        /// A secret the key `<name>_file` may instead name a file of.
        public let fromFile: Bool
        /// The default as configuration text, if it has one.
        public let defaultText: String?

        /// The name of the key that names the file of this secret (`secret_file`).
        public var fileKey: String? { fromFile ? name + "_file" : nil }

        /// The type's name in documentation (`list of on_battery | fault`).
        public var typeName: String { isWords ? "list of " + type.name : type.name }
    }

    /// Its name: within the section in a field, in full (`notifications.receivers`) in a schema.
    public let name: String
    /// One line of documentation.
    public let summary: String
    /// The keys of each entry, in documentation order.
    public let keys: [EntryKey]

    init<Entry: ConfigListEntrySettings>(name: String, summary: String, entry: Entry.Type) {
        let defaults = Entry()
        var keys: [EntryKey] = []
        for field in Entry.fields {
            precondition(field.environmentAliases.isEmpty && field.flagAliases.isEmpty,
                         "\(name).\(field.name): a key of a list entry is read from the file only")
            switch field.shape {
            case .value:
                keys.append(EntryKey(name: field.name, type: field.type, isWords: false, summary: field.summary,
                                     fromFile: field.fromFile,
                                     defaultText: field.write(defaults).map { $0.formatted(as: field.type) }.flatMap { $0.isEmpty ? nil : $0 }))
            case .words(_, let write):
                let words = write(defaults)
                keys.append(EntryKey(name: field.name, type: field.type, isWords: true, summary: field.summary, fromFile: false,
                                     defaultText: words.isEmpty ? nil : "[" + words.joined(separator: ", ") + "]"))
            case .list:
                preconditionFailure("\(name).\(field.name): a list entry holds no list of entries")
            }
        }
        let names = keys.map(\.name) + keys.compactMap(\.fileKey)
        precondition(Set(names).count == names.count, "a key of \(name) is listed twice")
        self.name = name
        self.summary = summary
        self.keys = keys
    }

    private init(name: String, summary: String, keys: [EntryKey]) {
        self.name = name
        self.summary = summary
        self.keys = keys
    }

    /// The same key named `name`.
    func named(_ name: String) -> ConfigListKey { ConfigListKey(name: name, summary: summary, keys: keys) }

    /// Every name an entry may hold: each key's and each secret's file key.
    public var entryKeyNames: [String] { keys.flatMap { [$0.name] + ($0.fileKey.map { [$0] } ?? []) } }

    /// The entry key `name`, if any.
    func key(named name: String) -> EntryKey? { keys.first { $0.name == name } }

    /// The settings an entry's values give, defaults for the rest.
    static func settings<Entry: ConfigListEntrySettings>(_ entry: ConfigListEntry) -> Entry {
        var settings = Entry()
        for field in Entry.fields {
            switch field.shape {
            case .value: if let value = entry.values[field.name] { field.read(value, &settings) }
            case .words(let read, _): if let words = entry.words[field.name] { read(words, &settings) }
            case .list: break
            }
        }
        return settings
    }

    /// The values of an entry's settings (every key with a value, defaults included).
    static func entry<Entry: ConfigListEntrySettings>(_ settings: Entry) -> ConfigListEntry {
        var entry = ConfigListEntry()
        for field in Entry.fields {
            switch field.shape {
            case .value: if let value = field.write(settings) { entry.values[field.name] = value }
            case .words(_, let write): entry.words[field.name] = write(settings)
            case .list: break
            }
        }
        return entry
    }
}
