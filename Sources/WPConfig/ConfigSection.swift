/// The settings of a configuration section a front end declares (`history`, an embedder's
/// `journal`): a value type whose keys the loader reads exactly as it reads the exporter's own
/// (file, environment, flags, with the same precedence, types, errors and suggestions), which
/// `check-config`, `--help` and the reference list, and whose secrets the log masks.
///
/// The type lists its keys once, in ``section``, each bound to the property it sets; the
/// defaults are its properties' initial values (``ConfigSettings/init()``). A key may hold a
/// list of entries with keys of their own (``ConfigListEntrySettings``).
///
/// ```swift
/// struct JournalSettings: ConfigSectionSettings {
///     var enabled = false
///     var path = "./journal"
///     var token: Secret?
///     static let section = ConfigSection<JournalSettings>("journal", [
///         .boolean("enabled", \.enabled, "Write the journal."),
///         .text("path", \.path, as: .path, "Directory of the journal."),
///         .secret("token", \.token, "Token the journal's readers present."),
///     ])
/// }
/// // journal.enabled, WINPOWER_EXPORTER_JOURNAL_ENABLED, --journal.enabled
/// let schema = ConfigSchema.exporter.adding(JournalSettings.self)
/// let loaded = try ConfigurationLoader.load(ConfigurationInputs(files: files, schema: schema))
/// let journal = loaded.configuration[section: JournalSettings.self]
/// ```
public protocol ConfigSectionSettings: ConfigSettings {
    /// The section: its name and each key with the property it sets.
    static var section: ConfigSection<Self> { get }
    /// What is wrong across keys, each naming its key (`journal.path: must not be empty while
    /// journal.enabled`, `journal.sinks[1].url: is required`); each key's own type and range are
    /// checked before. None by default.
    func problems() -> [ConfigDiagnostic]
}

extension ConfigSectionSettings {
    /// No problem across keys.
    public func problems() -> [ConfigDiagnostic] { [] }
}

/// A value whose properties configuration keys set: a declared section
/// (``ConfigSectionSettings``) or one entry of a list key (``ConfigListEntrySettings``).
public protocol ConfigSettings: Sendable, Equatable {
    /// Every key at its default.
    init()
}

/// One entry of a list key of a declared section (``ConfigSection/Field/list(_:_:_:)``): in
/// the configuration file a sequence of mappings, each with these keys.
///
/// ```swift
/// struct Sink: ConfigListEntrySettings {
///     var name = ""
///     var url = ""
///     var tags: [String] = []
///     static let fields: [ConfigSection<Sink>.Field] = [
///         .text("name", \.name, "Name of the sink."),
///         .text("url", \.url, as: .url, "Where it sends."),
///         .words("tags", \.tags, "Tags it takes."),
///     ]
/// }
/// // journal:
/// //   sinks:
/// //     - name: a
/// //       url: https://example.com/in
/// //       tags: [x, y]
/// ```
///
/// Entries are read from the configuration file only (an environment variable or a flag sets
/// one value, not a list).
public protocol ConfigListEntrySettings: ConfigSettings {
    /// The keys of one entry, each bound to the property it sets.
    static var fields: [ConfigSection<Self>.Field] { get }
}

/// The keys of a declared section (``ConfigSectionSettings``), each bound to a property of its
/// settings type.
public struct ConfigSection<Settings: ConfigSettings>: Sendable {
    /// One key: its name within the section, type, documentation, and how its value is read
    /// into the settings and out of them.
    public struct Field: Sendable {
        let name: String
        let type: ConfigValueType
        let summary: String
        let environmentAliases: [String]
        let flagAliases: [String]
        let read: @Sendable (ConfigValue, inout Settings) -> Void
        let write: @Sendable (Settings) -> ConfigValue?
        /// A single value (read and written by `read` and `write`), a list of words, or a list
        /// of entries.
        var shape: Shape = .value
        /// In a list entry, a secret that may be read from a file named by the key `<name>_file`.
        var fromFile = false
        /// A file the loader reads to check it exists and can be read (``file(_:_:_:env:flags:)``).
        var mustRead = false
        /// Whether the file it names holds a private key (a warning when others may read it).
        var holdsKey = false

        enum Shape: Sendable {
            case value
            case words(read: @Sendable ([String], inout Settings) -> Void, write: @Sendable (Settings) -> [String])
            case list(ConfigListKey, read: @Sendable ([ConfigListEntry], inout Settings) -> Void,
                      write: @Sendable (Settings) -> [ConfigListEntry])
        }

        /// `true` or `false`.
        public static func boolean(_ name: String, _ property: any WritableKeyPath<Settings, Bool> & Sendable, _ summary: String,
                                   env: [String] = [], flags: [String] = []) -> Field {
            Field(name: name, type: .boolean, summary: summary, environmentAliases: env, flagAliases: flags,
                  read: { value, settings in if case .boolean(let flag) = value { settings[keyPath: property] = flag } },
                  write: { .boolean($0[keyPath: property]) })
        }

        /// A whole number within `range` (outside it is a problem naming the key).
        public static func integer(_ name: String, _ property: any WritableKeyPath<Settings, Int> & Sendable, in range: ClosedRange<Int>,
                                   _ summary: String, env: [String] = [], flags: [String] = []) -> Field {
            Field(name: name, type: .integer(range), summary: summary, environmentAliases: env, flagAliases: flags,
                  read: { value, settings in if case .integer(let number) = value { settings[keyPath: property] = number } },
                  write: { .integer($0[keyPath: property]) })
        }

        /// A time span (`30s`, `1m30s`); at most 366 days.
        public static func duration(_ name: String, _ property: any WritableKeyPath<Settings, Duration> & Sendable, _ summary: String,
                                    env: [String] = [], flags: [String] = []) -> Field {
            Field(name: name, type: .duration, summary: summary, environmentAliases: env, flagAliases: flags,
                  read: { value, settings in if case .duration(let span) = value { settings[keyPath: property] = span } },
                  write: { .duration($0[keyPath: property]) })
        }

        /// Text of `type` (`.string`, `.path`, `.url`, `.choice([…])`), always set.
        public static func text(_ name: String, _ property: any WritableKeyPath<Settings, String> & Sendable,
                                as type: ConfigValueType = .string, _ summary: String,
                                env: [String] = [], flags: [String] = []) -> Field {
            precondition(type != .secret, "a secret is a Secret? property: .secret(…)")
            return Field(name: name, type: type, summary: summary, environmentAliases: env, flagAliases: flags,
                         read: { value, settings in if case .string(let text) = value { settings[keyPath: property] = text } },
                         write: { .string($0[keyPath: property]) })
        }

        /// Text of `type` that may be unset (`nil`).
        public static func text(_ name: String, _ property: any WritableKeyPath<Settings, String?> & Sendable,
                                as type: ConfigValueType = .string, _ summary: String,
                                env: [String] = [], flags: [String] = []) -> Field {
            precondition(type != .secret, "a secret is a Secret? property: .secret(…)")
            return Field(name: name, type: type, summary: summary, environmentAliases: env, flagAliases: flags,
                         read: { value, settings in if case .string(let text) = value { settings[keyPath: property] = text } },
                         write: { settings in settings[keyPath: property].map(ConfigValue.string) })
        }

        /// A file that may be unset and that the loader reads when set: one that does not exist
        /// or cannot be read is a problem naming the key (a CA bundle, a certificate).
        public static func file(_ name: String, _ property: any WritableKeyPath<Settings, String?> & Sendable, _ summary: String,
                                env: [String] = [], flags: [String] = []) -> Field {
            var field = text(name, property, as: .path, summary, env: env, flags: flags)
            field.mustRead = true
            return field
        }

        /// A private key's file that may be unset: read as ``file(_:_:_:env:flags:)`` reads
        /// one, and a warning naming the key when the group or others may read it (as for the
        /// web configuration's `tls_server_config.key_file`).
        public static func keyFile(_ name: String, _ property: any WritableKeyPath<Settings, String?> & Sendable, _ summary: String,
                                   env: [String] = [], flags: [String] = []) -> Field {
            var field = file(name, property, summary, env: env, flags: flags)
            field.holdsKey = true
            return field
        }

        /// A secret that may be unset: masked in every message, table and dump, and a secret of
        /// the log (`ExporterSecrets`).
        ///
        /// With `file`, the secret may instead be read from the file the key `<name>_file` names
        /// (as `winpower.password_file`): the whole file but one final newline, at most 4 KiB. In
        /// a section, `<name>_file` is a key of its own (environment variable, flag).
        public static func secret(_ name: String, _ property: any WritableKeyPath<Settings, Secret?> & Sendable, _ summary: String,
                                  file: Bool = false, env: [String] = [], flags: [String] = []) -> Field {
            Field(name: name, type: .secret, summary: summary, environmentAliases: env, flagAliases: flags,
                  read: { value, settings in if case .string(let text) = value { settings[keyPath: property] = Secret(text) } },
                  write: { settings in settings[keyPath: property].map { .string($0.reveal()) } }, fromFile: file)
        }

        /// In a list entry, a list of words (`events: [on_battery, fault]`, or one word alone),
        /// each of `type` (`.string`, `.choice([…])`).
        public static func words(_ name: String, _ property: any WritableKeyPath<Settings, [String]> & Sendable,
                                 as type: ConfigValueType = .string, _ summary: String) -> Field {
            precondition(type != .secret, "a list of secrets")
            return Field(name: name, type: type, summary: summary, environmentAliases: [], flagAliases: [],
                         read: { _, _ in }, write: { _ in nil },
                         shape: .words(read: { words, settings in settings[keyPath: property] = words },
                                       write: { $0[keyPath: property] }))
        }

        /// A list of entries, each a mapping of the keys of `Entry` (read from the configuration
        /// file only).
        public static func list<Entry: ConfigListEntrySettings>(_ name: String, _ property: any WritableKeyPath<Settings, [Entry]> & Sendable,
                                                                _ summary: String) -> Field {
            let key = ConfigListKey(name: name, summary: summary, entry: Entry.self)
            return Field(name: name, type: .string, summary: summary, environmentAliases: [], flagAliases: [],
                         read: { _, _ in }, write: { _ in nil },
                         shape: .list(key, read: { entries, settings in settings[keyPath: property] = entries.map(ConfigListKey.settings) },
                                      write: { $0[keyPath: property].map(ConfigListKey.entry) }))
        }

        var isValue: Bool { if case .value = shape { true } else { false } }
    }

    /// The section's name: the first part of each key's name (`journal`).
    public let name: String
    /// Its keys, in documentation order.
    public let fields: [Field]

    /// A section `name` of these keys.
    ///
    /// - Precondition: `name` and each key's name are lower-case words (`a-z`, `0-9`, `_`;
    ///   a key may hold a `.` for a group, as `snmp.system.name`), no key twice.
    public init(_ name: String, _ fields: [Field]) {
        precondition(Self.isName(name, dots: false), "section name \(name.debugDescription)")
        for field in fields { precondition(Self.isName(field.name, dots: true), "key name \(field.name.debugDescription)") }
        precondition(Set(fields.map(\.name)).count == fields.count, "a key of section \(name) is listed twice")
        for field in fields {
            if case .words = field.shape { preconditionFailure("\(name).\(field.name): a list of words is a key of a list entry") }
        }
        self.name = name
        self.fields = fields
    }

    private static func isName(_ text: String, dots: Bool) -> Bool {
        !text.isEmpty && text.first != "." && text.last != "."
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || (dots && $0 == ".") }
    }

    /// Its keys as the loader and the reference know them (`journal.enabled`), each with the
    /// default ``ConfigSettings/init()`` gives.
    public var keys: [ConfigKey] {
        let defaults = Settings()
        return fields.filter(\.isValue).flatMap { field in
            let key = ConfigKey(name + "." + field.name, field.type, default: field.write(defaults), field.summary,
                                env: field.environmentAliases, flags: field.flagAliases)
            guard field.fromFile else { return [key] }
            return [key, ConfigKey(name + "." + field.name + "_file", .path, default: nil,
                                   "File holding `\(name).\(field.name)` (the whole file but a final newline), instead of the key itself.")]
        }
    }

    /// Each secret that may be read from a file, and the key naming the file, in full
    /// (`mqtt.password`, `mqtt.password_file`).
    var secretFiles: [(secret: String, file: String)] {
        fields.filter { $0.isValue && $0.fromFile }.map { (name + "." + $0.name, name + "." + $0.name + "_file") }
    }

    /// The keys of files the loader reads (``Field/file(_:_:_:env:flags:)``), in full.
    var readableFiles: [String] {
        fields.filter { $0.isValue && $0.mustRead }.map { name + "." + $0.name }
    }

    /// The keys of private keys' files (``Field/keyFile(_:_:_:env:flags:)``), in full.
    var keyFiles: [String] {
        fields.filter { $0.isValue && $0.holdsKey }.map { name + "." + $0.name }
    }

    /// Its list keys (``Field/list(_:_:_:)``), in documentation order, named in full
    /// (`journal.sinks`).
    public var lists: [ConfigListKey] {
        fields.compactMap { field in
            guard case .list(let key, _, _) = field.shape else { return nil }
            return key.named(name + "." + key.name)
        }
    }

    /// The settings `values` and `lists` give (by full key name), defaults for the rest.
    public func settings(_ values: [String: ConfigValue], lists: [String: [ConfigListEntry]] = [:]) -> Settings {
        var settings = Settings()
        for field in fields {
            switch field.shape {
            case .value: if let value = values[name + "." + field.name] { field.read(value, &settings) }
            case .list(_, let read, _): if let entries = lists[name + "." + field.name] { read(entries, &settings) }
            case .words: break
            }
        }
        return settings
    }

    /// The values of `settings` that differ from the defaults, by full key name.
    public func values(_ settings: Settings) -> [String: ConfigValue] {
        let defaults = Settings()
        var values: [String: ConfigValue] = [:]
        for field in fields {
            let value = field.write(settings)
            if let value, value != field.write(defaults) { values[name + "." + field.name] = value }
        }
        return values
    }

    /// The non-empty lists of `settings`, by full key name.
    public func lists(_ settings: Settings) -> [String: [ConfigListEntry]] {
        var lists: [String: [ConfigListEntry]] = [:]
        for field in fields {
            guard case .list(_, _, let write) = field.shape else { continue }
            let entries = write(settings)
            if !entries.isEmpty { lists[name + "." + field.name] = entries }
        }
        return lists
    }

}

extension ConfigSection where Settings: ConfigSectionSettings {
    /// The section as a ``ConfigSchema`` holds it, whatever its settings type.
    public var erased: ConfigSchema.Section {
        let section = self
        return ConfigSchema.Section(name: name, keys: keys, lists: lists, secretFiles: secretFiles, readableFiles: readableFiles,
                                    keyFiles: keyFiles,
                                    problems: { values, lists in section.settings(values, lists: lists).problems() })
    }
}

/// Every key the loader reads: the exporter's own (``ConfigKey/all``) and those of the sections
/// front ends declare (``ConfigSectionSettings``), in documentation order.
///
/// The exporter's composition says which sections its front ends declare
/// (`Exporter.configurationSchema(adding:)` in WPExporter); the command-line tool loads, checks
/// and documents the configuration with it.
public struct ConfigSchema: Sendable {
    /// A declared section, whatever its settings type.
    public struct Section: Sendable {
        /// Its name.
        public let name: String
        /// Its keys, in documentation order.
        public let keys: [ConfigKey]
        /// Its list keys, in documentation order.
        public let lists: [ConfigListKey]
        /// Each secret that may be read from a file, and the key naming the file.
        let secretFiles: [(secret: String, file: String)]
        /// The keys of files the loader reads to check them.
        let readableFiles: [String]
        /// The keys of the private keys' files among them.
        let keyFiles: [String]
        /// What is wrong across its keys, for these values and lists (by full key name).
        let problems: @Sendable ([String: ConfigValue], [String: [ConfigListEntry]]) -> [ConfigDiagnostic]
    }

    /// Every key, in documentation order.
    public private(set) var keys: [ConfigKey]
    /// The declared sections, in the order they were added.
    public private(set) var sections: [Section] = []

    /// The exporter's own keys (``ConfigKey/all``).
    public static let exporter = ConfigSchema(keys: ConfigKey.all)

    private init(keys: [ConfigKey]) { self.keys = keys }

    /// This schema and the section of `settings`.
    public func adding<Settings: ConfigSectionSettings>(_ settings: Settings.Type) -> ConfigSchema {
        adding(Settings.section.erased)
    }

    /// This schema and `section`, after the sections it has.
    ///
    /// - Precondition: no key, environment variable or flag of `section` is one this schema
    ///   already has, and its name is no section of it (nor `servers`).
    public func adding(_ section: Section) -> ConfigSchema {
        precondition(!sectionNames.contains(section.name) && section.name != "servers",
                     "configuration section \(section.name) is declared twice")
        let flags = Set(allFlags)
        let variables = Set(keys.flatMap { [$0.environmentVariable] + $0.environmentAliases })
        for key in section.keys {
            precondition(key.flag.hasPrefix("--" + section.name + ".") && !flags.contains(key.flag)
                         && key.flagAliases.allSatisfy { !flags.contains($0) }, "flag of \(key.name) taken")
            precondition(([key.environmentVariable] + key.environmentAliases).allSatisfy { !variables.contains($0) },
                         "environment variable of \(key.name) taken")
        }
        var schema = self
        schema.keys += section.keys
        schema.sections.append(section)
        return schema
    }

    /// The key named `name`, if there is one.
    public func key(named name: String) -> ConfigKey? { keys.first { $0.name == name } }

    /// The names the reference documents for the keys of list entries
    /// (`notifications.receivers[].url`, `notifications.receivers[].secret_file`), each list's
    /// own name first.
    public var listKeyNames: [String] {
        sections.flatMap(\.lists).flatMap { list in
            [list.name] + list.entryKeyNames.map { list.name + "[]." + $0 }
        }
    }

    /// The key a command-line flag (with its `--`) sets, if any.
    public func key(forFlag flag: String) -> ConfigKey? {
        keys.first { $0.flag == flag || $0.flagAliases.contains(flag) }
    }

    /// Every flag that sets a key, canonical names and aliases.
    public var allFlags: [String] { keys.flatMap { [$0.flag] + $0.flagAliases } }

    /// The section names, in documentation order.
    public var sectionNames: [String] {
        var result: [String] = []
        for key in keys where !result.contains(key.section) { result.append(key.section) }
        for section in sections where !result.contains(section.name) { result.append(section.name) }
        return result
    }

    /// The declared section `name`, if any.
    func section(named name: String) -> Section? { sections.first { $0.name == name } }

    /// The list key of a declared section named `name` in full (`notifications.receivers`), if any.
    func list(named name: String) -> ConfigListKey? {
        sections.lazy.flatMap(\.lists).first { $0.name == name }
    }
}

/// The values of one declared section in an ``ExporterConfiguration``: those that differ from
/// the defaults, by full key name, with the section that reads them.
public struct DeclaredSectionValues: Sendable, Equatable {
    /// The section.
    public let section: ConfigSchema.Section
    /// Its values other than the defaults, by full key name (`journal.enabled`).
    public var values: [String: ConfigValue]
    /// Its non-empty lists, by full key name (`journal.sinks`).
    public var lists: [String: [ConfigListEntry]]

    /// The values and lists of `section`.
    public init(section: ConfigSchema.Section, values: [String: ConfigValue], lists: [String: [ConfigListEntry]] = [:]) {
        self.section = section
        self.values = values
        self.lists = lists
    }

    /// Equal when they are of the same section and hold the same values and lists.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.section.name == rhs.section.name && lhs.values == rhs.values && lhs.lists == rhs.lists
    }

    /// Every problem of these values: each key's type and range (as the loader checks them),
    /// then the section's own rules.
    func problems() -> [ConfigDiagnostic] {
        var problems: [ConfigDiagnostic] = []
        for key in section.keys {
            guard let value = values[key.name] else { continue }
            if case .integer(let range) = key.type, case .integer(let number) = value, !range.contains(number) {
                problems.append(ConfigDiagnostic(key: key.name, source: nil,
                                                 message: "\(number) is out of range; must be \(range.lowerBound)–\(range.upperBound)"))
            }
            if case .duration(let span) = value, let reason = LoadState.durationProblem(key.name, span) {
                problems.append(ConfigDiagnostic(key: key.name, source: nil, message: reason))
            }
        }
        return problems + section.problems(values, lists)
    }
}

extension ExporterConfiguration {
    /// The settings of a declared section (``ConfigSectionSettings``): what the configuration
    /// sets, the defaults for the rest. Setting it keeps the values that differ from the
    /// defaults.
    public subscript<Settings: ConfigSectionSettings>(section type: Settings.Type) -> Settings {
        get {
            let declared = declaredSections[Settings.section.name]
            return Settings.section.settings(declared?.values ?? [:], lists: declared?.lists ?? [:])
        }
        set {
            let section = Settings.section
            let values = section.values(newValue)
            let lists = section.lists(newValue)
            declaredSections[section.name] = values.isEmpty && lists.isEmpty ? nil
                : DeclaredSectionValues(section: section.erased, values: values, lists: lists)
        }
    }

    /// Every secret of the declared sections, by full key name (for the log's redactor).
    public var declaredSecrets: [(key: String, value: String)] {
        declaredSections.keys.sorted().flatMap { name -> [(key: String, value: String)] in
            guard let entry = declaredSections[name] else { return [] }
            let own = entry.section.keys.compactMap { key -> (key: String, value: String)? in
                guard key.isSecret, case .string(let text)? = entry.values[key.name] else { return nil }
                return (key.name, text)
            }
            let listed = entry.section.lists.flatMap { list in
                (entry.lists[list.name] ?? []).enumerated().flatMap { index, item in
                    list.keys.compactMap { key -> (key: String, value: String)? in
                        guard key.type == .secret, case .string(let text)? = item.values[key.name] else { return nil }
                        return ("\(list.name)[\(index)].\(key.name)", text)
                    }
                }
            }
            return own + listed
        }
    }
}
