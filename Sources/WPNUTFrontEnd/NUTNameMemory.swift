package import WPStorage

/// What the NUT bridge served a device as: kept in the data directory, so a restart while
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

/// The NUT bridge's section of the data directory (``StateSections``, section `nut-names`): one
/// record per device served, `[device key, NUT name, description]`, written with the next save
/// of the state file (version 3's `n` lines, so the files of releases before the sections still
/// load).
package struct NUTNameMemory: Sendable {
    /// The section's name.
    package static let section = StateSections.version3Section

    private let sections: StateSections

    package init(_ sections: StateSections) {
        self.sections = sections
    }

    /// The names the previous run served, by device key; a record that is not three fields
    /// with a name is skipped.
    package func load() -> [String: StoredNUTName] {
        var names: [String: StoredNUTName] = [:]
        for record in sections.records(Self.section) where record.count == 3 && !record[1].isEmpty {
            names[record[0]] = StoredNUTName(name: record[1], description: record[2])
        }
        return names
    }

    /// Keeps `names` for the next save (in memory: never waits for I/O).
    package func save(_ names: [String: StoredNUTName]) {
        sections.replace(Self.section, with: names.keys.sorted().compactMap { key in
            names[key].map { [key, $0.name, $0.description] }
        })
    }
}
