/// The history database (`history.db` in the data directory): each UPS's slots in three tiers
/// and the schema's version. One writer connection writes (``write(_:)``, ``prune(before:)``);
/// readers open their own (WAL: they never wait for it).
///
/// Schema 1: `ups` (one row per server and `device_id`), `slot` (one row per tier, UPS and
/// slot start: samples, and per metric its least, greatest, sum and count in stored units, the
/// last mode and energy total; `WITHOUT ROWID`, keyed by tier, UPS and start). A 5-minute slot
/// written is merged into its hour and its day in the same transaction, so the coarser tiers
/// are exact aggregates of the finer ones.
package final class HistoryStore {
    /// The schema version this code writes (`PRAGMA user_version`).
    package static let schemaVersion: Int64 = 1

    package let database: SQLiteDatabase
    private var upsIDs: [HistoryUPS: Int64] = [:]

    /// Opens (creating) the database at `path` and its schema.
    ///
    /// - Throws: ``SQLiteError`` naming the path: the library missing, the file not a database,
    ///   or a schema newer than this version's (a downgrade: the file is left as it is).
    package init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        database = try SQLiteDatabase(path: path, create: !readOnly, readOnly: readOnly)
        let version = try database.rows("PRAGMA user_version").first?.first?.integer ?? 0
        guard version <= Self.schemaVersion else {
            throw SQLiteError(code: 26, operation: "opening \(path)",
                              message: "its history was written by a newer wpexporter (schema \(version); this one reads \(Self.schemaVersion))")
        }
        guard !readOnly, version < Self.schemaVersion else { return }
        let metrics = HistoryMetric.allCases.map { metric in
            ["min", "max", "sum", "n"].map { "\(metric.column)_\($0) INTEGER" }.joined(separator: ", ")
        }.joined(separator: ",\n    ")
        try database.transaction { () throws(SQLiteError) in
            try database.execute("""
                CREATE TABLE IF NOT EXISTS ups (
                    id INTEGER PRIMARY KEY, server TEXT NOT NULL, device TEXT NOT NULL, UNIQUE (server, device));
                CREATE TABLE IF NOT EXISTS slot (
                    tier INTEGER NOT NULL, ups INTEGER NOT NULL, start INTEGER NOT NULL, samples INTEGER NOT NULL,
                    \(metrics),
                    mode INTEGER, energy_kwh REAL,
                    PRIMARY KEY (tier, ups, start)) WITHOUT ROWID;
                PRAGMA user_version = \(Self.schemaVersion);
                """)
        }
    }

    /// Stores 5-minute slots and merges each into its hour and its day, in one transaction. A
    /// slot stored again for the same UPS and start (written in two parts, across a restart) is
    /// merged into the stored one.
    package func write(_ slots: [HistorySlot]) throws(SQLiteError) {
        guard !slots.isEmpty else { return }
        let metrics = HistoryMetric.allCases
        let columns = metrics.flatMap { metric in ["min", "max", "sum", "n"].map { "\(metric.column)_\($0)" } }
        let placeholders = Array(repeating: "?", count: 4 + columns.count + 2).joined(separator: ", ")
        let names = (["tier", "ups", "start", "samples"] + columns + ["mode", "energy_kwh"]).joined(separator: ", ")
        let merge = metrics.flatMap { metric -> [String] in
            let c = metric.column
            return ["\(c)_min = coalesce(min(\(c)_min, excluded.\(c)_min), \(c)_min, excluded.\(c)_min)",
                    "\(c)_max = coalesce(max(\(c)_max, excluded.\(c)_max), \(c)_max, excluded.\(c)_max)",
                    "\(c)_sum = coalesce(\(c)_sum + excluded.\(c)_sum, \(c)_sum, excluded.\(c)_sum)",
                    "\(c)_n = coalesce(\(c)_n + excluded.\(c)_n, \(c)_n, excluded.\(c)_n)"]
        }.joined(separator: ", ")
        try database.transaction { () throws(SQLiteError) in
            let upsert = try database.prepare("""
                INSERT INTO slot (\(names)) VALUES (\(placeholders))
                ON CONFLICT (tier, ups, start) DO UPDATE SET samples = samples + excluded.samples, \(merge),
                    mode = coalesce(excluded.mode, mode), energy_kwh = coalesce(excluded.energy_kwh, energy_kwh)
                """)
            defer { upsert.finalize() }
            for slot in slots {
                let ups = try id(of: slot.ups)
                var values: [SQLiteValue] = []
                for metric in metrics {
                    if let aggregate = slot.aggregates[metric] {
                        values += [.integer(aggregate.min), .integer(aggregate.max), .integer(aggregate.sum), .integer(aggregate.count)]
                    } else {
                        values += [.null, .null, .null, .null]
                    }
                }
                let tail: [SQLiteValue] = [slot.mode.map { .integer(Int64($0)) } ?? .null, slot.energyKWh.map(SQLiteValue.real) ?? .null]
                for tier in HistoryTier.allCases {
                    try upsert.run([.integer(Int64(tier.rawValue)), .integer(ups), .integer(tier.slot(of: slot.start)),
                                    .integer(slot.samples)] + values + tail)
                }
            }
        }
    }

    /// Deletes each tier's slots that started before its bound (Unix seconds).
    ///
    /// - Returns: the rows deleted.
    @discardableResult
    package func prune(before bounds: [HistoryTier: Int64]) throws(SQLiteError) -> Int64 {
        var deleted: Int64 = 0
        let statement = try database.prepare("DELETE FROM slot WHERE tier = ? AND start < ?")
        defer { statement.finalize() }
        for (tier, bound) in bounds.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try statement.run([.integer(Int64(tier.rawValue)), .integer(bound)])
            deleted += database.changes
        }
        return deleted
    }

    /// A UPS's slots of `tier` that start in `from..<to` (Unix seconds), oldest first.
    package func slots(of ups: HistoryUPS, tier: HistoryTier, from: Int64, to: Int64) throws(SQLiteError) -> [HistorySlot] {
        let metrics = HistoryMetric.allCases
        let columns = metrics.flatMap { metric in ["min", "max", "sum", "n"].map { "slot.\(metric.column)_\($0)" } }
        let rows = try database.rows("""
            SELECT slot.start, slot.samples, \(columns.joined(separator: ", ")), slot.mode, slot.energy_kwh
            FROM slot JOIN ups ON ups.id = slot.ups
            WHERE ups.server = ? AND ups.device = ? AND slot.tier = ? AND slot.start >= ? AND slot.start < ?
            ORDER BY slot.start
            """, [.text(ups.server), .text(ups.device), .integer(Int64(tier.rawValue)), .integer(from), .integer(to)])
        return rows.map { row in
            var slot = HistorySlot(ups: ups, start: row[0].integer ?? 0, samples: row[1].integer ?? 0)
            for (index, metric) in metrics.enumerated() {
                let base = 2 + index * 4
                if let min = row[base].integer, let max = row[base + 1].integer, let sum = row[base + 2].integer,
                   let count = row[base + 3].integer, count > 0 {
                    slot.aggregates[metric] = HistoryAggregate(min: min, max: max, sum: sum, count: count)
                }
            }
            slot.mode = row[2 + metrics.count * 4].integer.map { Int($0) }
            slot.energyKWh = row[3 + metrics.count * 4].double
            return slot
        }
    }

    /// The id of `ups`'s row, made when it has none.
    private func id(of ups: HistoryUPS) throws(SQLiteError) -> Int64 {
        if let id = upsIDs[ups] { return id }
        let parameters: [SQLiteValue] = [.text(ups.server), .text(ups.device)]
        try database.rows("INSERT OR IGNORE INTO ups (server, device) VALUES (?, ?)", parameters)
        guard let id = try database.rows("SELECT id FROM ups WHERE server = ? AND device = ?", parameters).first?.first?.integer else {
            throw SQLiteError(code: 1, operation: "recording \(ups.server)/\(ups.device)", message: "no row after the insert")
        }
        upsIDs[ups] = id
        return id
    }
}
