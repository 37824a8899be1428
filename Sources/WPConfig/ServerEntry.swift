/// One entry of the `servers` list: a WinPower server of a multi-server exporter.
///
/// Keys an entry leaves out are taken from the `winpower` section, so ``winPower`` is always
/// complete. With no `servers` section ``ExporterConfiguration/servers`` is empty and the
/// exporter talks to the single server of `winpower`, exactly as before; no `server` label is
/// added then.
///
/// ```yaml
/// winpower:                 # the defaults of every entry
///   username: admin
///   password_file: /run/secrets/winpower
/// servers:
///   - name: building-a
///     base_url: https://wp-a.example:8081
///     labels:
///       site: north
///   - name: building-b
///     base_url: https://wp-b.example:8081
///     collection_interval: 10s
/// ```
public struct ServerEntry: Sendable, Equatable {
    /// A static label of the entry (`labels:` in the file), in file order.
    public struct Label: Sendable, Equatable {
        /// The label's name.
        public var name: String
        /// The label's value.
        public var value: String

        /// Creates the label `name` with `value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// `servers[].name`: unique; the value of the `server` label and of `/probe?target=`.
    public var name: String
    /// The entry's WinPower settings, with the keys it leaves out taken from `winpower`.
    public var winPower: ExporterConfiguration.WinPower
    /// `servers[].labels`: static labels added to every series of this server.
    public var labels: [Label]
    /// `servers[].collection_interval`; `nil` uses `scheduler.collection_interval`.
    public var collectionInterval: Duration?
    /// `servers[].energy_from`: whose stored energy totals this entry continues (see
    /// docs/configuration.md, "Many servers"); `nil` for the entry's own name.
    public var energyFrom: String?

    /// Creates an entry named `name` with its complete WinPower settings.
    public init(name: String, winPower: ExporterConfiguration.WinPower, labels: [Label] = [],
                collectionInterval: Duration? = nil, energyFrom: String? = nil) {
        self.name = name
        self.winPower = winPower
        self.labels = labels
        self.collectionInterval = collectionInterval
        self.energyFrom = energyFrom
    }
}
