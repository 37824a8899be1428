/// The type of a configuration key: how its text is read and what it may hold.
public enum ConfigValueType: Sendable, Equatable {
    /// Any text.
    case string
    /// Text that must not be shown: masked in every message and dump.
    case secret
    /// A filesystem path.
    case path
    /// An `http://` or `https://` URL with a host.
    case url
    /// A decimal integer within the given bounds.
    case integer(ClosedRange<Int>)
    /// `true` or `false` (`1`/`0` also accepted, any letter case).
    case boolean
    /// A duration such as `500ms`, `5s`, `1m30s`, `1h`.
    case duration
    /// A file mode written in octal (`0644` or `0o644`), at most `0777`.
    case fileMode
    /// One of a fixed set of words.
    case choice([String])
    /// One of a fixed set of words, or a filesystem path (text containing `/`).
    case choiceOrPath([String])

    /// The name used in documentation and messages.
    public var name: String {
        switch self {
        case .string: return "string"
        case .secret: return "string (secret)"
        case .path: return "path"
        case .url: return "URL"
        case .integer(let range): return "integer \(range.lowerBound)–\(range.upperBound)"
        case .boolean: return "boolean"
        case .duration: return "duration"
        case .fileMode: return "octal file mode"
        case .choice(let words): return words.joined(separator: " | ")
        case .choiceOrPath(let words): return (words + ["path"]).joined(separator: " | ")
        }
    }
}

/// One configuration key: its dotted name, type, default, and the names it has in the
/// environment and on the command line.
///
/// The full list is ``ConfigKey/all``; the documentation in `docs/configuration.md` is
/// generated from it, so the two cannot drift.
public struct ConfigKey: Sendable, Equatable {
    /// The dotted name, e.g. `winpower.base_url`.
    public var name: String
    /// The type of its value.
    public var type: ConfigValueType
    /// The value used when no source sets the key; nil for optional keys.
    public var defaultValue: ConfigValue?
    /// One line of documentation.
    public var summary: String
    /// Extra environment variable names accepted for this key (the seed's short forms).
    public var environmentAliases: [String]
    /// Extra flags accepted for this key (the seed's short forms), with their `--`.
    public var flagAliases: [String]
    /// When set, the key is accepted but has no effect; this says why (used in the warning).
    public var ignoredBecause: String?

    /// The prefix every environment variable of the exporter starts with.
    public static let environmentPrefix = "WINPOWER_EXPORTER_"

    /// `WINPOWER_EXPORTER_` + the upper-cased name with `.` replaced by `_`.
    public var environmentVariable: String {
        Self.environmentPrefix + name.uppercased().replacing(".", with: "_")
    }

    /// `--` + the dotted name.
    public var flag: String { "--" + name }

    /// Whether the value is masked in output.
    public var isSecret: Bool { type == .secret }

    /// The section part of the name (`winpower` for `winpower.base_url`).
    public var section: String { String(name.prefix { $0 != "." }) }

    /// Creates a key description.
    public init(_ name: String, _ type: ConfigValueType, default defaultValue: ConfigValue?,
                _ summary: String, env environmentAliases: [String] = [], flags flagAliases: [String] = [],
                ignoredBecause: String? = nil) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.summary = summary
        self.environmentAliases = environmentAliases
        self.flagAliases = flagAliases
        self.ignoredBecause = ignoredBecause
    }

    /// The key named `name`, if there is one.
    public static func named(_ name: String) -> ConfigKey? {
        all.first { $0.name == name }
    }

    /// The key a command-line flag (with its `--`) sets, if any.
    public static func forFlag(_ flag: String) -> ConfigKey? {
        all.first { $0.flag == flag || $0.flagAliases.contains(flag) }
    }

    /// The key an environment variable sets, if any.
    public static func forEnvironmentVariable(_ variable: String) -> ConfigKey? {
        all.first { $0.environmentVariable == variable || $0.environmentAliases.contains(variable) }
    }

    /// Every flag that sets a configuration key, canonical names and aliases.
    public static var allFlags: [String] {
        all.flatMap { [$0.flag] + $0.flagAliases }
    }

    /// The section names, in documentation order.
    public static var sections: [String] {
        var result: [String] = []
        for key in all where !result.contains(key.section) { result.append(key.section) }
        return result
    }
}
