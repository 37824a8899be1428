/// The history database (`history.db` in the data directory): each UPS's slots in three tiers
/// and the schema's version. One writer connection writes (``write(_:)``, ``prune(before:)``);
/// readers open their own (WAL: they never wait for it).
///
/// Schema 2: `ups` (one row per server and `device_id`), `slot` (one row per tier, UPS and
/// slot start: samples; per metric its mean and how far its least lies below and its greatest
/// above the mean, in stored units; the last mode and energy total in Wh; `WITHOUT ROWID`, keyed
/// by tier, UPS and start), and the view `slot_values` of the same in units. A 5-minute slot
/// written is merged into its hour and its day in the same transaction (means weighted by
/// samples). Schema 1 (each metric's least, greatest, sum and count; the energy in kWh) is
/// converted in place on opening.
package final class HistoryStore {
    /// The schema version this code writes (`PRAGMA user_version`).
    package static let schemaVersion: Int64 = 2

    package let database: SQLiteDatabase
    /// The schema the file had when opened (0: new; below ``schemaVersion`` opened read-only:
    /// not yet converted, which the writer does when it opens it).
    package let openedVersion: Int64
    private var upsIDs: [HistoryUPS: Int64] = [:]

    /// The `slot` columns after the key and `samples`, in order.
    private static let valueColumns: [String] =
        HistoryMetric.allCases.flatMap { [$0.column, $0.column + "_below", $0.column + "_above"] } + ["mode", "energy_wh"]

    /// `history.db` in `directory`.
    package static func path(in directory: String) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + "history.db"
    }

    /// Opens (creating) the database at `path` and its schema.
    ///
    /// - Throws: ``SQLiteError`` naming the path: the library missing, the file not a database,
    ///   or a schema newer than this version's (a downgrade: the file is left as it is).
    package init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        database = try SQLiteDatabase(path: path, create: !readOnly, readOnly: readOnly)
        let version = try database.rows("PRAGMA user_version").first?.first?.integer ?? 0
        openedVersion = version
        guard version <= Self.schemaVersion else {
            throw SQLiteError(code: 26, operation: "opening \(path)",
                              message: "its history was written by a newer wpexporter (schema \(version); this one reads \(Self.schemaVersion))")
        }
        guard !readOnly else { return }
        if version < Self.schemaVersion { try create(from: version) }
        try createJournal()
    }

    /// Makes schema 2's slot table and view, converting schema 1's slots (`version` 1).
    private func create(from version: Int64) throws(SQLiteError) {
        let metrics = HistoryMetric.allCases
        let columns = metrics.map { "\($0.column) INTEGER, \($0.column)_below INTEGER, \($0.column)_above INTEGER" }
            .joined(separator: ",\n    ")
        let units = metrics.map { metric -> String in
            let (c, scale) = (metric.column, metric.scale == 1 ? "" : " / \(Int(metric.scale)).0")
            return "\(c)\(scale) AS \(c), (\(c) - \(c)_below)\(scale) AS \(c)_min, (\(c) + \(c)_above)\(scale) AS \(c)_max"
        }.joined(separator: ",\n        ")
        // Schema 1's rows in schema 2's columns: the mean rounded, the least and greatest as distances from it.
        let converted = metrics.map { metric -> String in
            let c = metric.column
            let mean = "CASE WHEN \(c)_n > 0 THEN CAST(round(\(c)_sum * 1.0 / \(c)_n) AS INTEGER) END"
            return "\(mean), \(mean) - \(c)_min, \(c)_max - \(mean)"
        }.joined(separator: ", ")
        try database.transaction { () throws(SQLiteError) in
            // Another connection (the writer a reload replaces, still at its first write) may
            // have made the schema since this one read the version: read again under the lock.
            let version = try database.rows("PRAGMA user_version").first?.first?.integer ?? 0
            guard version < Self.schemaVersion else { return }
            if version == 1 { try database.execute("ALTER TABLE slot RENAME TO slot_schema1") }
            try database.execute("""
                CREATE TABLE IF NOT EXISTS ups (
                    id INTEGER PRIMARY KEY, server TEXT NOT NULL, device TEXT NOT NULL, UNIQUE (server, device));
                CREATE TABLE slot (
                    tier INTEGER NOT NULL, ups INTEGER NOT NULL, start INTEGER NOT NULL, samples INTEGER NOT NULL,
                    \(columns),
                    mode INTEGER, energy_wh INTEGER,
                    PRIMARY KEY (tier, ups, start)) WITHOUT ROWID;
                CREATE VIEW slot_values AS SELECT
                    ups.server AS server, ups.device AS device, slot.tier AS tier, slot.start AS start,
                    datetime(slot.start, 'unixepoch') AS start_utc, samples,
                    \(units),
                    mode, energy_wh / 1000.0 AS energy_kwh
                    FROM slot JOIN ups ON ups.id = slot.ups;
                """)
            if version == 1 {
                try database.execute("""
                    INSERT INTO slot SELECT tier, ups, start, samples, \(converted), mode, CAST(round(energy_kwh * 1000) AS INTEGER)
                        FROM slot_schema1;
                    DROP TABLE slot_schema1;
                    """)
            }
            try database.execute("PRAGMA user_version = \(Self.schemaVersion)")
        }
    }

    /// The event journal's table and indexes (made on every writable open, so a file of an
    /// earlier build of schema 2 gains them).
    private func createJournal() throws(SQLiteError) {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS event (
                id INTEGER PRIMARY KEY, time INTEGER NOT NULL, server TEXT NOT NULL, device TEXT,
                kind TEXT NOT NULL, code TEXT, detail TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS event_time ON event (time);
            CREATE INDEX IF NOT EXISTS event_ups ON event (server, device, time);
            """)
    }

    /// Stores 5-minute slots and merges each into its hour and its day, in one transaction. A
    /// slot stored again for the same UPS and start (written in two parts, across a restart) is
    /// merged into the stored one.
    package func write(_ slots: [HistorySlot]) throws(SQLiteError) {
        guard !slots.isEmpty else { return }
        let key = "tier = ? AND ups = ? AND start = ?"
        try database.transaction { () throws(SQLiteError) in
            let select = try database.prepare("SELECT samples, \(Self.valueColumns.joined(separator: ", ")) FROM slot WHERE \(key)")
            defer { select.finalize() }
            let columns = ["tier", "ups", "start", "samples"] + Self.valueColumns
            let replace = try database.prepare("""
                INSERT OR REPLACE INTO slot (\(columns.joined(separator: ", ")))
                VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
                """)
            defer { replace.finalize() }
            for slot in slots {
                let ups = try id(of: slot.ups)
                for tier in HistoryTier.allCases {
                    let start = tier.slot(of: slot.start)
                    let keyValues: [SQLiteValue] = [.integer(Int64(tier.rawValue)), .integer(ups), .integer(start)]
                    var merged = HistorySlot(ups: slot.ups, start: start)
                    if let row = try select.rows(keyValues).first { merged = Self.slot(slot.ups, start: start, row: row) }
                    merged.merge(slot)
                    try replace.run(keyValues + Self.row(of: merged))
                }
            }
        }
    }

    /// A slot's stored values after the key, in ``valueColumns``' order with `samples` first.
    private static func row(of slot: HistorySlot) -> [SQLiteValue] {
        var values: [SQLiteValue] = [.integer(slot.samples)]
        for metric in HistoryMetric.allCases {
            if let aggregate = slot.aggregates[metric], aggregate.count > 0 {
                let mean = aggregate.storedMean
                values += [.integer(mean), .integer(mean - aggregate.min), .integer(aggregate.max - mean)]
            } else {
                values += [.null, .null, .null]
            }
        }
        values.append(slot.mode.map { .integer(Int64($0)) } ?? .null)
        values.append(slot.energyKWh.map { .integer(Int64(($0 * 1000).rounded())) } ?? .null)
        return values
    }

    /// The slot a stored row (`samples`, then ``valueColumns``) describes: each metric's mean
    /// weighted by the slot's samples.
    private static func slot(_ ups: HistoryUPS, start: Int64, row: [SQLiteValue]) -> HistorySlot {
        var slot = HistorySlot(ups: ups, start: start, samples: row[0].integer ?? 0)
        for (index, metric) in HistoryMetric.allCases.enumerated() {
            let base = 1 + index * 3
            // A row another program wrote (or a page half readable) may hold anything: a distance
            // below zero or a value past what a reading can be drops that metric of the slot.
            if let mean = row[base].integer, let below = row[base + 1].integer, let above = row[base + 2].integer, slot.samples > 0,
               below >= 0, above >= 0, abs(mean) < 1 << 50, below < 1 << 50, above < 1 << 50 {
                slot.aggregates[metric] = HistoryAggregate(min: mean - below, max: mean + above,
                                                           sum: mean &* slot.samples, count: slot.samples)
            }
        }
        let tail = 1 + HistoryMetric.allCases.count * 3
        slot.mode = row[tail].integer.map { Int($0) }
        slot.energyKWh = row[tail + 1].integer.map { Double($0) / 1000 }
        return slot
    }

    /// Appends `events` to the journal, in one transaction. An event seen at a start
    /// (``HistoryEvent/atStart``) is kept only when the journal's last event of its condition
    /// (of that UPS or server; for an alarm, of that code) is another, or, with none, when it
    /// starts a condition; and each alarm the journal last had raised that a UPS seen at a
    /// start no longer has is recorded cleared.
    ///
    /// - Returns: the events written.
    @discardableResult
    package func record(_ events: [HistoryEvent]) throws(SQLiteError) -> [HistoryEvent] {
        guard !events.isEmpty else { return [] }
        return try database.transaction { () throws(SQLiteError) -> [HistoryEvent] in
            let insert = try database.prepare("INSERT INTO event (time, server, device, kind, code, detail) VALUES (?, ?, ?, ?, ?, ?)")
            defer { insert.finalize() }
            var written: [HistoryEvent] = []
            var started: [HistoryUPS: (time: Int64, raised: Set<String>, detail: String)] = [:]
            for event in events {
                if event.atStart, let device = event.device {
                    let ups = HistoryUPS(server: event.server, device: device)
                    var entry = started[ups] ?? (event.time, [], event.detail)
                    if event.kind == .alarmRaised, let code = event.code { entry.raised.insert(code) }
                    if event.kind != .alarmRaised { entry.detail = event.detail }
                    started[ups] = entry
                }
                if event.atStart, let pair = event.kind.pair {
                    let last = try lastKind(of: pair, server: event.server, device: event.device,
                                            code: event.kind == .alarmRaised ? event.code : nil)
                    if last == event.kind || (last == nil && event.kind.isNormal) { continue }
                }
                try insert.run([.integer(event.time), .text(event.server), event.device.map(SQLiteValue.text) ?? .null,
                                .text(event.kind.rawValue), event.code.map(SQLiteValue.text) ?? .null, .text(event.detail)])
                written.append(event)
            }
            for (ups, entry) in started.sorted(by: { ($0.key.server, $0.key.device) < ($1.key.server, $1.key.device) }) {
                let raised = try database.rows("""
                    SELECT code, detail FROM event AS e WHERE server = ? AND device = ? AND kind = 'alarm_raised'
                    AND id = (SELECT max(id) FROM event WHERE server = e.server AND device = e.device AND code = e.code
                              AND kind IN ('alarm_raised', 'alarm_cleared'))
                    ORDER BY code
                    """, [.text(ups.server), .text(ups.device)])
                for row in raised {
                    guard let code = row[0].text, !entry.raised.contains(code) else { continue }
                    let cleared = HistoryEvent(time: entry.time, server: ups.server, device: ups.device, kind: .alarmCleared,
                                               code: code, detail: row[1].text ?? code, atStart: true)
                    try insert.run([.integer(cleared.time), .text(ups.server), .text(ups.device), .text(cleared.kind.rawValue),
                                    .text(code), .text(cleared.detail)])
                    written.append(cleared)
                }
            }
            return written
        }
    }

    /// The kind of the journal's last event among `kinds` of that UPS or server (and code).
    private func lastKind(of kinds: [HistoryEvent.Kind], server: String, device: String?, code: String?) throws(SQLiteError) -> HistoryEvent.Kind? {
        let list = kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let row = try database.rows("""
            SELECT kind FROM event WHERE server = ? AND device IS ? AND kind IN (\(list)) AND (? IS NULL OR code = ?)
            ORDER BY id DESC LIMIT 1
            """, [.text(server), device.map(SQLiteValue.text) ?? .null, code.map(SQLiteValue.text) ?? .null,
                  code.map(SQLiteValue.text) ?? .null]).first
        return row?.first?.text.flatMap(HistoryEvent.Kind.init(rawValue:))
    }

    /// The journal's events in `from..<to` (Unix seconds), newest first, at most `limit`:
    /// of one UPS (`ups`; its server's events too, not the exporter's) or of all, of the `kinds` given (all when empty).
    package func events(ups: HistoryUPS?, kinds: [HistoryEvent.Kind] = [], from: Int64, to: Int64,
                        limit: Int) throws(SQLiteError) -> [HistoryEvent] {
        var conditions = ["time >= ?", "time < ?"]
        var parameters: [SQLiteValue] = [.integer(from), .integer(to)]
        if let ups {
            conditions.append("server = ? AND (device = ? OR (device IS NULL AND kind NOT IN (\(HistoryEvent.Kind.exporterKinds))))")
            parameters += [.text(ups.server), .text(ups.device)]
        }
        if !kinds.isEmpty {
            conditions.append("kind IN (\(kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")))")
        }
        let rows = try database.rows("""
            SELECT time, server, device, kind, code, detail FROM event WHERE \(conditions.joined(separator: " AND "))
            ORDER BY time DESC, id DESC LIMIT \(max(0, limit))
            """, parameters)
        return rows.compactMap { row in
            guard let kind = row[3].text.flatMap(HistoryEvent.Kind.init(rawValue:)) else { return nil }
            return HistoryEvent(time: row[0].integer ?? 0, server: row[1].text ?? "", device: row[2].text, kind: kind,
                                code: row[4].text, detail: row[5].text ?? "")
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
        // The journal is kept as long as the daily slots.
        if let bound = bounds[.day] {
            try database.rows("DELETE FROM event WHERE time < ?", [.integer(bound)])
            deleted += database.changes
        }
        return deleted
    }

    /// A UPS's slots of `tier` that start in `from..<to` (Unix seconds), oldest first.
    package func slots(of ups: HistoryUPS, tier: HistoryTier, from: Int64, to: Int64) throws(SQLiteError) -> [HistorySlot] {
        let columns = (["start", "samples"] + Self.valueColumns).map { "slot.\($0)" }.joined(separator: ", ")
        let rows = try database.rows("""
            SELECT \(columns)
            FROM slot JOIN ups ON ups.id = slot.ups
            WHERE ups.server = ? AND ups.device = ? AND slot.tier = ? AND slot.start >= ? AND slot.start < ?
            ORDER BY slot.start
            """, [.text(ups.server), .text(ups.device), .integer(Int64(tier.rawValue)), .integer(from), .integer(to)])
        return rows.map { row in Self.slot(ups, start: row[0].integer ?? 0, row: Array(row.dropFirst())) }
    }

    /// Every UPS's slots of `tier` that start in `from..<to`, by UPS then time, handed to `body`
    /// one at a time (a day of 5-minute slots for 1,000 UPSs is 288,000: never held at once).
    package func forEachSlot(tier: HistoryTier, from: Int64, to: Int64, _ body: (HistorySlot) -> Void) throws(SQLiteError) {
        let columns = (["ups", "start", "samples"] + Self.valueColumns).map { "slot.\($0)" }.joined(separator: ", ")
        var current: (id: Int64, ups: HistoryUPS)?
        try database.forEachRow("""
            SELECT ups.server, ups.device, \(columns)
            FROM slot JOIN ups ON ups.id = slot.ups
            WHERE slot.tier = ? AND slot.start >= ? AND slot.start < ?
            ORDER BY slot.ups, slot.start
            """, [.integer(Int64(tier.rawValue)), .integer(from), .integer(to)]) { row throws(SQLiteError) in
            let id = row[2].integer ?? 0
            if current?.id != id { current = (id, HistoryUPS(server: row[0].text ?? "", device: row[1].text ?? "")) }
            body(Self.slot(current!.ups, start: row[3].integer ?? 0, row: Array(row.dropFirst(4))))
        }
    }

    /// Whether the database has a row for `ups` (it has had a slot written).
    package func knows(_ ups: HistoryUPS) throws(SQLiteError) -> Bool {
        try !database.rows("SELECT 1 FROM ups WHERE server = ? AND device = ?", [.text(ups.server), .text(ups.device)]).isEmpty
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
