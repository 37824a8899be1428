public import WPClient

/// Which devices of a server the collector keeps, and what it calls and labels them.
///
/// Applied to every readout before anything else: a device left out is neither integrated,
/// exported, published to NUT clients nor counted, and its stored energy total stays in the
/// state file untouched (it continues if the device is selected again).
public struct DeviceFilter: Sendable, Equatable {
    /// Device ids to keep; with ``includeAliases`` empty too, every device is kept.
    public var include: Set<String>
    /// Device ids never kept.
    public var exclude: Set<String>
    /// Alias patterns of devices to keep.
    public var includeAliases: [AliasPattern]
    /// Alias patterns of devices never kept.
    public var excludeAliases: [AliasPattern]
    /// Names shown instead of the WinPower alias, by device id.
    public var names: [String: String]
    /// The names of the static device labels, in the order they follow `device_type`.
    public var labelNames: [String]
    /// Each device's static label values, aligned with ``labelNames`` (`""` where it has none).
    public var labels: [String: [String]]
    /// Batteries by device id (`Device.battery`).
    public var batteries: [String: BatteryLife] = [:]
    /// The battery of every device not in ``batteries``.
    public var battery: BatteryLife?

    /// Keeps every device unchanged.
    public static let all = DeviceFilter()

    /// Creates a filter; `labels` gives each device's static labels by name (their names, sorted,
    /// become ``labelNames``). Left at its defaults, it keeps every device unchanged.
    public init(include: Set<String> = [], exclude: Set<String> = [], includeAliases: [AliasPattern] = [],
                excludeAliases: [AliasPattern] = [], names: [String: String] = [:], labels: [String: [String: String]] = [:]) {
        self.include = include
        self.exclude = exclude
        self.includeAliases = includeAliases
        self.excludeAliases = excludeAliases
        self.names = names
        let labelNames = Set(labels.values.flatMap(\.keys)).sorted()
        self.labelNames = labelNames
        self.labels = labels.mapValues { values in labelNames.map { values[$0] ?? "" } }
    }

    /// Whether `device` is kept.
    public func keeps(_ device: Device) -> Bool {
        let alias = device.asset.alias ?? ""
        let included = (include.isEmpty && includeAliases.isEmpty) || include.contains(device.id)
            || includeAliases.contains { $0.matches(alias) }
        return included && !exclude.contains(device.id) && !excludeAliases.contains { $0.matches(alias) }
    }

    /// `readout` with only the kept devices, renamed where a name is set, each with its battery.
    func apply(to readout: DeviceReadout) -> DeviceReadout {
        guard self != .all else { return readout }
        var result = readout
        result.devices = readout.devices.compactMap { device in
            guard keeps(device) else { return nil }
            let name = names[device.id]
            let battery = batteries[device.id] ?? self.battery
            guard name != nil || battery != nil else { return device }
            var changed = device
            if let name { changed.asset.alias = name }
            changed.battery = battery
            return changed
        }
        return result
    }

    /// The static label values of device `id`, aligned with ``labelNames``.
    func labelValues(_ id: String) -> [String] {
        labelNames.isEmpty ? [] : labels[id] ?? Array(repeating: "", count: labelNames.count)
    }
}

/// A pattern matched against a whole device alias: `*` any run of characters (none too), `?`
/// one character, `\` makes the next character literal; case matters.
public struct AliasPattern: Sendable, Equatable, CustomStringConvertible {
    private enum Token: Equatable, Sendable {
        case literal(Character)
        case one
        case any
    }

    private let tokens: [Token]
    /// The pattern as written.
    public let description: String

    /// Compiles `pattern`; a trailing `\` matches a literal backslash.
    public init(_ pattern: String) {
        description = pattern
        var tokens: [Token] = []
        var escaped = false
        for character in pattern {
            if escaped {
                tokens.append(.literal(character))
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "*" {
                if tokens.last != .any { tokens.append(.any) }
            } else {
                tokens.append(character == "?" ? .one : .literal(character))
            }
        }
        if escaped { tokens.append(.literal("\\")) }
        self.tokens = tokens
    }

    /// Whether `text` matches the whole pattern (iterative, with one backtracking point per
    /// `*`: linear in practice, at most pattern × text steps).
    public func matches(_ text: String) -> Bool {
        let characters = Array(text)
        var (t, p) = (0, 0)
        var star: (pattern: Int, text: Int)?
        while t < characters.count {
            if p < tokens.count {
                switch tokens[p] {
                case .any:
                    star = (p, t)
                    p += 1
                    continue
                case .one:
                    t += 1
                    p += 1
                    continue
                case .literal(let character) where character == characters[t]:
                    t += 1
                    p += 1
                    continue
                case .literal:
                    break
                }
            }
            guard let backtrack = star else { return false }
            star = (backtrack.pattern, backtrack.text + 1)
            p = backtrack.pattern + 1
            t = backtrack.text + 1
        }
        while p < tokens.count, tokens[p] == .any { p += 1 }
        return p == tokens.count
    }
}
