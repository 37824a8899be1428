/// `winpower.devices` (or a `servers` entry's `devices`): which of a server's devices are
/// exported, and per device a display name and static labels.
///
/// ```yaml
/// devices:
///   include: [5e1a7a0c-0000-4b35-b0dd-000000000000]   # device ids; none: every device
///   include_aliases: ["Hall *"]                         # or aliases matching a pattern
///   exclude: [5e1a7a0c-0003-4b35-b0dd-000000000003]
///   exclude_aliases: ["Test*", "*spare*"]
///   overrides:
///     5e1a7a0c-0001-4b35-b0dd-000000000001:
///       name: Hall 1 UPS A                              # instead of the WinPower alias
///       labels:
///         rack: r12
///         room: "2.14"
///       battery: {installed: 2024-03-01, life: 5y}      # docs/battery.md
///   battery: {installed: 2023-06-15}                    # every other device's (life 4y)
/// ```
///
/// A device is selected when nothing is included explicitly or it is included by id or alias,
/// and it is neither excluded by id nor by alias. Patterns match the whole alias: `*` any run
/// of characters, `?` one character, `\` makes the next character literal; case matters.
public struct DeviceSelection: Sendable, Equatable {
    /// The name, static labels and battery of one device.
    public struct Override: Sendable, Equatable {
        /// Shown as `device_name` (and to NUT clients) instead of the WinPower alias.
        public var name: String?
        /// Added to every series of the device, in file order.
        public var labels: [ServerEntry.Label]
        /// Its battery's installation day and life; each unset one is the selection's
        /// ``DeviceSelection/battery``'s.
        public var battery: Battery?

        /// Creates a device's override: a display name (`nil` keeps the WinPower alias), static
        /// labels and its battery.
        public init(name: String? = nil, labels: [ServerEntry.Label] = [], battery: Battery? = nil) {
            self.name = name
            self.labels = labels
            self.battery = battery
        }
    }

    /// A battery as the configuration gives it (`battery: {installed: 2024-03-01, life: 4y}`),
    /// checked at load: `installed` a day `YYYY-MM-DD`, `life` years, months and days (`4y`,
    /// `3y6mo`, `1460d`).
    public struct Battery: Sendable, Equatable {
        /// The day the battery was installed (or last replaced), `YYYY-MM-DD`.
        public var installed: String?
        /// How long it is expected to last; unset: 4 years.
        public var life: String?

        /// A battery installed on `installed` expected to last `life`.
        public init(installed: String? = nil, life: String? = nil) {
            self.installed = installed
            self.life = life
        }
    }

    /// Device ids to export; with ``includeAliases`` empty too, every device is.
    public var include: [String] = []
    /// Device ids never exported.
    public var exclude: [String] = []
    /// Alias patterns of devices to export.
    public var includeAliases: [String] = []
    /// Alias patterns of devices never exported.
    public var excludeAliases: [String] = []
    /// Names, labels and batteries by device id.
    public var overrides: [String: Override] = [:]
    /// The battery of every device without one of its own in ``overrides`` (and what a
    /// device's own leaves unset).
    public var battery: Battery?

    /// Creates a selection; left at its defaults, it selects every device unchanged.
    public init(include: [String] = [], exclude: [String] = [], includeAliases: [String] = [],
                excludeAliases: [String] = [], overrides: [String: Override] = [:], battery: Battery? = nil) {
        self.include = include
        self.exclude = exclude
        self.includeAliases = includeAliases
        self.excludeAliases = excludeAliases
        self.overrides = overrides
        self.battery = battery
    }

    /// Whether it selects every device unchanged.
    public var isEmpty: Bool { self == DeviceSelection() }

    /// The names of every static label of the overrides, sorted: each device's series carry
    /// all of them (empty where a device has no value).
    public var labelNames: [String] {
        Set(overrides.values.flatMap { $0.labels.map(\.name) }).sorted()
    }

    /// Why `pattern` cannot be an alias pattern, or nil.
    static func patternProblem(_ pattern: String) -> String? {
        if pattern.isEmpty { return "must not be empty" }
        if pattern.unicodeScalars.count > 256 { return "is longer than 256 characters" }
        if pattern.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "contains a control character" }
        let trailing = pattern.reversed().prefix { $0 == "\\" }.count
        if trailing % 2 == 1 { return "ends with a lone '\\' (write '\\\\' for a backslash)" }
        return nil
    }
}
