/// What the NUT bridge served a device as: kept with the energy state, so a restart while
/// WinPower is unreachable still lists the UPS under its name and accepts `LOGIN` for it.
public struct StoredNUTName: Sendable, Equatable {
    /// The NUT name (`rack-a`).
    public var name: String
    /// `LIST UPS`'s description (alias, model, server).
    public var description: String

    public init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}
