import WPCSQLiteShim

/// Why a history database operation failed: SQLite's result code and message, with what was
/// being done (`opening /var/lib/wpexporter/history.db`, `preparing "INSERT INTO …"`).
package struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_BUSY` 5, `SQLITE_FULL` 13, `SQLITE_NOTADB` 26, …);
    /// -1 when the library could not be loaded.
    package var code: Int32
    /// What was being done.
    package var operation: String
    /// SQLite's message (or why the library is missing).
    package var message: String

    package init(code: Int32, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    /// The library could not be loaded: this is the reason.
    package var isLibraryMissing: Bool { code == -1 }
    /// Another connection holds the lock (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    package var isBusy: Bool { code == SQLiteCode.busy || code == SQLiteCode.locked }

    package var description: String { "\(operation): \(message) (SQLite code \(code))" }
}

/// SQLite's result codes and column types (sqlite3.h) as the C shim's calls return them.
enum SQLiteCode {
    static let ok = Int32(WP_SQLITE_OK), busy = Int32(WP_SQLITE_BUSY), locked = Int32(WP_SQLITE_LOCKED)
    static let row = Int32(WP_SQLITE_ROW), done = Int32(WP_SQLITE_DONE)
    static let integer = Int32(WP_SQLITE_INTEGER), float = Int32(WP_SQLITE_FLOAT), text = Int32(WP_SQLITE_TEXT)
    static let blob = Int32(WP_SQLITE_BLOB)
}

/// The system's libsqlite3, loaded at run time (no headers or link-time dependency).
package enum SQLiteLibrary {
    /// Loads the library once (`library`, else `libsqlite3.so.0` and the usual names; the first
    /// call's choice holds for the process) and returns its version.
    ///
    /// - Throws: ``SQLiteError`` with code -1 naming what was tried and why it failed.
    @discardableResult
    package static func load(_ library: String? = nil) throws(SQLiteError) -> String {
        var message = [CChar](repeating: 0, count: 256)
        let status = library.map { wp_sqlite_load($0, &message, message.count) } ?? wp_sqlite_load(nil, &message, message.count)
        guard status == 0 else {
            throw SQLiteError(code: -1, operation: "loading libsqlite3", message: Self.text(message))
        }
        return String(cString: wp_sqlite_libversion())
    }

    static func text(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// One value bound to a statement's parameter or read from a column.
package enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// The value as a number (an integer widened), `nil` for null and text.
    package var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        case .null, .text: nil
        }
    }

    /// The value as an integer (a real truncated), `nil` for null and text.
    package var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): value.isFinite ? Int64(exactly: value.rounded(.towardZero)) : nil
        case .null, .text: nil
        }
    }

    /// The text, `nil` for anything else.
    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}

/// A connection to one SQLite database file, used by one thread at a time (SQLite's
/// multi-thread mode: the connection is not shared, each thread opens its own).
package final class SQLiteDatabase {
    /// The file's path.
    package let path: String
    private var handle: UnsafeMutableRawPointer?

    /// Opens `path` (created when `create`), read-only or read-write; a symbolic link as its
    /// last component is refused. A read-write connection uses WAL (readers never wait for the
    /// writer) and `synchronous = NORMAL` (a crash loses at most the last transactions, never
    /// the file); every connection waits up to `busyTimeout` for another's lock.
    ///
    /// - Throws: ``SQLiteError`` naming the path (the library missing: code -1).
    package init(path: String, create: Bool = true, readOnly: Bool = false,
                 busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        self.path = path
        try SQLiteLibrary.load()
        var message = [CChar](repeating: 0, count: 512)
        var db: UnsafeMutableRawPointer?
        let code = wp_sqlite_open(path, create ? 1 : 0, readOnly ? 1 : 0, &db, &message, message.count)
        guard code == SQLiteCode.ok, let db else {
            throw SQLiteError(code: code, operation: "opening \(path)", message: SQLiteLibrary.text(message))
        }
        handle = db
        let milliseconds = Int32(clamping: busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000)
        wp_sqlite_busy_timeout(db, milliseconds)
        do {
            // Reading the schema proves the file is a database (a foreign file fails here).
            try execute("SELECT count(*) FROM sqlite_master")
            if !readOnly {
                try execute("PRAGMA journal_mode = WAL")
                try execute("PRAGMA synchronous = NORMAL")
            }
        } catch {
            close()
            throw SQLiteError(code: error.code, operation: "opening \(path)", message: error.message)
        }
    }

    deinit { close() }

    /// Closes the connection (its statements must be finalized); later calls fail.
    package func close() {
        if let handle { wp_sqlite_close(handle) }
        handle = nil
    }

    /// Runs `sql` (one or more statements whose rows, if any, are discarded).
    package func execute(_ sql: String) throws(SQLiteError) {
        let db = try open("running \(Self.quoted(sql))")
        var message = [CChar](repeating: 0, count: 512)
        let code = wp_sqlite_exec(db, sql, &message, message.count)
        guard code == SQLiteCode.ok else {
            throw SQLiteError(code: code & 0xff, operation: "running \(Self.quoted(sql))", message: SQLiteLibrary.text(message))
        }
    }

    /// A prepared statement of `sql` (one statement; `?` parameters numbered from 1).
    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let db = try open("preparing \(Self.quoted(sql))")
        var statement: UnsafeMutableRawPointer?
        let code = wp_sqlite_prepare(db, sql, &statement)
        guard code == SQLiteCode.ok, let statement else {
            throw SQLiteError(code: code & 0xff, operation: "preparing \(Self.quoted(sql))", message: String(cString: wp_sqlite_errmsg(db)))
        }
        return SQLiteStatement(statement, sql: sql, database: self)
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`: the write lock taken at once), committed
    /// when it returns, rolled back when it throws.
    package func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Every row `sql` returns with `parameters` bound, each as its columns' values.
    @discardableResult
    package func rows(_ sql: String, _ parameters: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        defer { statement.finalize() }
        return try statement.rows(parameters)
    }

    /// Runs `sql` with `parameters` bound and hands each row to `body` as it comes, so a long
    /// answer is never held whole.
    package func forEachRow(_ sql: String, _ parameters: [SQLiteValue] = [],
                            _ body: ([SQLiteValue]) throws(SQLiteError) -> Void) throws(SQLiteError) {
        let statement = try prepare(sql)
        defer { statement.finalize() }
        try statement.bind(parameters)
        while try statement.step() { try body(statement.row) }
    }

    /// Rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    package var changes: Int64 { handle.map { wp_sqlite_changes($0) } ?? 0 }

    fileprivate func lastError(_ code: Int32, _ operation: String) -> SQLiteError {
        SQLiteError(code: code & 0xff, operation: operation, message: handle.map { String(cString: wp_sqlite_errmsg($0)) } ?? "closed")
    }

    private func open(_ operation: String) throws(SQLiteError) -> UnsafeMutableRawPointer {
        guard let handle else { throw SQLiteError(code: 21, operation: operation, message: "the database \(path) is closed") }
        return handle
    }

    /// `sql` for a message: its first 80 characters, quoted.
    static func quoted(_ sql: String) -> String {
        let flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return "\"" + (flat.count > 80 ? flat.prefix(77) + "..." : flat) + "\""
    }
}

/// A prepared statement of a ``SQLiteDatabase``, used on its connection's thread; finalize it
/// before the connection closes.
package final class SQLiteStatement {
    private var handle: UnsafeMutableRawPointer?
    private let sql: String
    private unowned let database: SQLiteDatabase

    fileprivate init(_ handle: UnsafeMutableRawPointer, sql: String, database: SQLiteDatabase) {
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit { finalize() }

    /// Releases the statement (idempotent).
    package func finalize() {
        if let handle { wp_sqlite_finalize(handle) }
        handle = nil
    }

    /// Resets it for another run and binds `values` to its parameters, from 1.
    package func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        guard let handle else { throw SQLiteError(code: 21, operation: "binding \(SQLiteDatabase.quoted(sql))", message: "finalized") }
        wp_sqlite_reset(handle)
        wp_sqlite_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = wp_sqlite_bind_null(handle, index)
            case .integer(let number): code = wp_sqlite_bind_int64(handle, index, number)
            case .real(let number): code = wp_sqlite_bind_double(handle, index, number)
            case .text(let text):
                var text = text
                code = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { wp_sqlite_bind_text(handle, index, $0.baseAddress, Int32(bytes.count)) }
                }
            }
            guard code == SQLiteCode.ok else {
                throw database.lastError(code, "binding parameter \(index) of \(SQLiteDatabase.quoted(sql))")
            }
        }
    }

    /// Runs it to its next row: `true` with a row (``row``), `false` when done.
    package func step() throws(SQLiteError) -> Bool {
        guard let handle else { throw SQLiteError(code: 21, operation: "running \(SQLiteDatabase.quoted(sql))", message: "finalized") }
        let code = wp_sqlite_step(handle)
        switch code {
        case SQLiteCode.row: return true
        case SQLiteCode.done: return false
        default:
            let error = database.lastError(code, "running \(SQLiteDatabase.quoted(sql))")
            wp_sqlite_reset(handle)
            throw error
        }
    }

    /// Binds `values` and runs it to its end (an `INSERT`, `UPDATE` or `DELETE`).
    package func run(_ values: [SQLiteValue]) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    /// Binds `values` and returns every row it gives, each as its columns' values.
    package func rows(_ values: [SQLiteValue]) throws(SQLiteError) -> [[SQLiteValue]] {
        try bind(values)
        var rows: [[SQLiteValue]] = []
        while try step() { rows.append(row) }
        return rows
    }

    /// The current row's values.
    package var row: [SQLiteValue] {
        guard let handle else { return [] }
        return (0..<wp_sqlite_column_count(handle)).map { column in
            switch wp_sqlite_column_type(handle, column) {
            case (SQLiteCode.integer): return .integer(wp_sqlite_column_int64(handle, column))
            case (SQLiteCode.float): return .real(wp_sqlite_column_double(handle, column))
            case (SQLiteCode.text), (SQLiteCode.blob):
                var length: Int32 = 0
                guard let bytes = wp_sqlite_column_text(handle, column, &length) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self))
            default: return .null
            }
        }
    }
}
