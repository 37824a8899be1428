/// The energy migration rule of docs/configuration.md ("Many servers"), as a pure function of
/// the configuration, so every user of the state applies the same one.
extension ExporterConfiguration {
    /// The name the totals of a `winpower`-only configuration are known by in `energy_from`.
    public static let singleServerEnergyName = "winpower"

    /// The entry that adopts the totals written by a `winpower`-only configuration: the one with
    /// `energy_from: winpower`, otherwise the first whose resolved `base_url` equals
    /// `winpower.base_url` (ignoring a trailing `/`); nil when none does (or without `servers`),
    /// and those totals then stay in the state file untouched.
    public var singleServerEnergyAdopter: String? {
        if let explicit = servers.first(where: { $0.energyFrom == Self.singleServerEnergyName }) {
            return explicit.name
        }
        guard let base = winPower.baseURL.map(Self.withoutTrailingSlash) else { return nil }
        return servers.first { entry in
            entry.energyFrom == nil && entry.winPower.baseURL.map(Self.withoutTrailingSlash) == base
        }?.name
    }

    /// The stored name whose totals entry `name` continues: its `energy_from`, `winpower` for
    /// the ``singleServerEnergyAdopter``, nil for an entry that starts from its own name only.
    ///
    /// - Parameter name: an entry's name.
    public func energyOrigin(of name: String) -> String? {
        guard let entry = servers.first(where: { $0.name == name }) else { return nil }
        if let from = entry.energyFrom, from != entry.name { return from }
        return singleServerEnergyAdopter == name ? Self.singleServerEnergyName : nil
    }

    private static func withoutTrailingSlash(_ url: String) -> String {
        var text = Substring(url)
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }
}
