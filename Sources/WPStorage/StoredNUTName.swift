/// What the NUT bridge served a device as: kept with the energy state, so a restart while
/// WinPower is unreachable still lists the UPS under its name and accepts `LOGIN` for it.
package struct StoredNUTName: Sendable, Equatable {
    /// The NUT name (`rack-a`).
    package var name: String
    /// `LIST UPS`'s description (alias, model, server).
    package var description: String

    package init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}
