import Foundation
import Testing
import WPTestThreads
import WPTestSupport
@testable import WPHistory

/// The history database's connection to the system's libsqlite3 (loaded at run time).
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct SQLiteTests {
    func directory() throws -> String {
        let directory = temporaryPathRemovedAtExit("wpexporter-sqlite")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func theLibraryLoadsAndSaysItsVersion() throws {
        let version = try SQLiteLibrary.load()
        #expect(version.hasPrefix("3."), "\(version)")
    }

    /// Values of every kind go in through parameters and come back as they were, in WAL mode.
    @Test func valuesRoundTripThroughParameters() throws {
        let path = try directory() + "/history.db"
        let database = try SQLiteDatabase(path: path)
        #expect(try database.rows("PRAGMA journal_mode") == [[.text("wal")]])
        try database.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, n)")
        let insert = try database.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
        try database.transaction { () throws(SQLiteError) in
            try insert.run([.integer(Int64.max), .real(-0.5), .text("机房 A \"quoted\" 🔋"), .null])
            try insert.run([.integer(-1), .real(230.25), .text(""), .integer(7)])
        }
        insert.finalize()
        #expect(database.changes == 1)
        let rows = try database.rows("SELECT i, r, s, n FROM t WHERE i < ? ORDER BY i", [.integer(Int64.max)])
        #expect(rows == [[.integer(-1), .real(230.25), .text(""), .integer(7)]])
        let all = try database.rows("SELECT s FROM t ORDER BY i DESC")
        #expect(all.first == [.text("机房 A \"quoted\" 🔋")])
        database.close()
        // A second connection reads what the first committed.
        let reader = try SQLiteDatabase(path: path, create: false, readOnly: true)
        #expect(try reader.rows("SELECT count(*) FROM t") == [[.integer(2)]])
    }

    /// Run as root, a WAL file still takes the database's owner (SQLite's fchown, which the shim
    /// lets through only when the owner would change; scripts/check-seccomp.sh proves the call is
    /// not made when it would not).
    @Test(.enabled(if: getuid() == 0, "changing a file's owner needs root"))
    func aWALFileTakesTheDatabasesOwnerWhenRunAsRoot() throws {
        let directory = try directory()
        let path = directory + "/history.db"
        try SQLiteDatabase(path: path).close()
        #expect(chown(path, 65534, 65534) == 0, "chown: \(String(cString: strerror(errno)))")
        let database = try SQLiteDatabase(path: path)
        try database.execute("CREATE TABLE t (i INTEGER)")
        var status = stat()
        #expect(stat(path + "-wal", &status) == 0)
        #expect(status.st_uid == 65534 && status.st_gid == 65534, "owner \(status.st_uid):\(status.st_gid)")
        database.close()
    }

    /// A body that throws rolls its transaction back.
    @Test func aFailedTransactionLeavesNothing() throws {
        let database = try SQLiteDatabase(path: try directory() + "/history.db")
        try database.execute("CREATE TABLE t (i INTEGER PRIMARY KEY)")
        #expect(throws: SQLiteError.self) {
            try database.transaction { () throws(SQLiteError) in
                try database.execute("INSERT INTO t VALUES (1)")
                try database.execute("INSERT INTO t VALUES (1)")  // a duplicate key
            }
        }
        #expect(try database.rows("SELECT count(*) FROM t") == [[.integer(0)]])
    }

    /// Errors say what was done, on what, and SQLite's reason: a statement that does not parse,
    /// a file that is not a database, a missing file opened without creating it, a link.
    @Test func errorsNameTheOperationAndThePath() throws {
        let directory = try directory()
        let database = try SQLiteDatabase(path: directory + "/history.db")
        do {
            _ = try database.prepare("SELEKT * FROM nowhere")
            Issue.record("a statement that does not parse was prepared")
        } catch {
            #expect(error.description.hasPrefix("preparing \"SELEKT * FROM nowhere\": "), "\(error)")
            #expect(error.message.contains("syntax error"), "\(error)")
        }
        let foreign = directory + "/foreign.db"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: foreign))
        #expect {
            try SQLiteDatabase(path: foreign)
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.code == 26 && error.description.hasPrefix("opening \(foreign): ")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign)) == Data(repeating: 0x41, count: 4096), "left as it was")
        #expect {
            try SQLiteDatabase(path: directory + "/missing.db", create: false)
        } throws: { error in
            (error as? SQLiteError)?.code == 14
        }
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.db", withDestinationPath: directory + "/history.db")
        #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: directory + "/link.db") }
    }
}
