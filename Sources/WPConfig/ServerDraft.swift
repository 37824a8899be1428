/// One entry of the `servers` section as the file writes it, before inheritance; validation
/// fills ``resolved`` with the entry's own values and those taken from `winpower`.
struct ServerDraft {
    /// 0-based position in the `servers` sequence: `servers[index]` in messages.
    var index: Int
    /// Where the entry starts.
    var source: ConfigSource
    /// `name`, as written.
    var name: (text: String, source: ConfigSource)?
    /// The entry's own `winpower` keys, by their dotted `winpower.` name.
    var own: [String: ConfigSetting] = [:]
    /// `labels`, in file order.
    var labels: [(label: ServerEntry.Label, source: ConfigSource)] = []
    /// `devices`, when the entry has its own (else `winpower.devices` applies).
    var devices: DevicesDraft?
    /// `collection_interval`.
    var collectionInterval: ConfigSetting?
    /// `energy_from`, as written.
    var energyFrom: (text: String, source: ConfigSource)?
    /// Every `winpower.` key the entry ends up with: its own or taken from `winpower`.
    var resolved: [String: ConfigSetting] = [:]

    /// The keys an entry may hold besides those of `winpower`.
    static let entryKeys = ["name", "labels", "collection_interval", "energy_from", "devices"]

    /// The `winpower` keys an entry may repeat, without their section (`base_url`, ...).
    static var winPowerKeys: [String] {
        ConfigKey.all.filter { $0.section == "winpower" }.map { String($0.name.dropFirst("winpower.".count)) }
    }

    /// `servers[2]`: how messages name the entry.
    var path: String { "servers[\(index)]" }

    /// `servers[2].base_url`.
    func path(_ key: String) -> String { path + "." + key }

    /// Whether the file's item is not a mapping (reported once; nothing else is checked).
    var isMalformed = false

    /// Whether `key` (a dotted `winpower.` name) is the entry's own rather than inherited; a
    /// password read from the entry's own `password_file` is its own.
    func isOwn(_ key: String) -> Bool {
        own[key] != nil || (key == "winpower.password" && own["winpower.password_file"] != nil)
    }

    /// The value `ServerEntry.winPower` is built from: own values first, then `winpower`'s.
    func value(_ key: String) -> ConfigValue? { resolved[key]?.value }

    /// What a server name and a NUT UPS name are made of: ASCII letters, digits, `_`, `.`, `-`.
    static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-".unicodeScalars)

    /// A name or `energy_from` value: a Prometheus label value that is also safe in a URL query.
    static func nameProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.unicodeScalars.count <= 64, text.unicodeScalars.allSatisfy(nameCharacters.contains) else {
            return "must be 1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-'"
        }
        return nil
    }

    /// Label names a static label must not take: Prometheus' own (`job`, `instance`, `le`,
    /// `quantile`), `server`, and every label the exporter puts on its series.
    static let reservedLabels: Set<String> = [
        "server", "job", "instance", "le", "quantile", "device_id", "device_name", "device_type", "model",
        "firmware_version", "fault_code", "mode", "alarm_code", "reason", "error_type", "endpoint", "configuration",
        "handler", "code", "method", "phase", "section", "key", "outcome", "command", "result",
    ]

    /// Why `name` cannot be a static label's name, or nil.
    static func labelNameProblem(_ name: String) -> String? {
        let scalars = Array(name.unicodeScalars)
        func isLetter(_ scalar: Unicode.Scalar) -> Bool {
            (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
        }
        guard let first = scalars.first, isLetter(first),
              scalars.allSatisfy({ isLetter($0) || ($0 >= "0" && $0 <= "9") }) else {
            return "is not a Prometheus label name; must match [a-zA-Z_][a-zA-Z0-9_]*"
        }
        if name.hasPrefix("__") { return "starts with '__', which Prometheus reserves" }
        if reservedLabels.contains(name) {
            return "is a label the exporter or Prometheus sets; choose another name (reserved: "
                + reservedLabels.sorted().joined(separator: ", ") + ")"
        }
        return nil
    }
}
