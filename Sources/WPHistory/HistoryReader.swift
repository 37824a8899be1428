#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPRuntime

/// Answers the history API (``HistoryQuery``) from `history.db`: each query on a thread of its
/// own queue (`history-reader`, at most two at once), with a read-only connection of its own
/// (WAL: it never waits for the writer, nor the writer for it). Never on an event loop or
/// Swift's pool; at most ``maxWaiting`` queries wait, more are answered 503 at once.
package final class HistoryReader: Sendable {
    /// Queries that may wait for a thread: 200 browsers opening UPS pages at once wait (a few
    /// milliseconds each for a 24-hour page) rather than being refused.
    package static let maxWaiting = 256

    /// `history.db`'s path.
    package let path: String
    private let queue = WorkerQueue(name: "history-reader", maxThreads: 2, idleTime: .seconds(30))
    private let waiting = Atomic<Int>(0)

    /// A reader of `history.db` in `directory`.
    package init(directory: String) {
        path = HistoryStore.path(in: directory)
    }

    /// The slots `query` asks for, oldest first; `nil` when the database has no such UPS (or
    /// there is no database yet).
    ///
    /// - Returns: the slots, or a 503 naming the file and SQLite's reason when it cannot be
    ///   read, or when too many queries wait.
    package func slots(_ query: HistoryQuery) async -> Result<[HistorySlot]?, HistoryQueryError> {
        await answer { path in Self.read(query, path: path) }
    }

    /// Every UPS's 5-minute slots that start in `from..<to`, folded into `initial` by `fold`
    /// one slot at a time on a reader thread (a day of them for 1,000 UPSs is 288,000 slots:
    /// never held at once); `initial` when there is no database yet.
    package func foldFiveMinuteSlots<T: Sendable>(from: Int64, to: Int64, into initial: T,
                                                  _ fold: @escaping @Sendable (inout T, HistorySlot) -> Void) async -> Result<T, HistoryQueryError> {
        await answer { path in
            Self.withStore(path) { store throws(SQLiteError) -> T in
                var result = initial
                try store.forEachSlot(tier: .fiveMinutes, from: from, to: to) { fold(&result, $0) }
                return result
            }.map { $0 ?? initial }
        }
    }

    /// The events `query` asks for, newest first (none without a database yet).
    package func events(_ query: HistoryEventQuery) async -> Result<[HistoryEvent], HistoryQueryError> {
        await answer { path in
            Self.withStore(path) { store throws(SQLiteError) in
                try Self.events(query, in: store)
            }.map { $0 ?? [] }
        }
    }

    /// The slots `query` asks for (`nil` when the database has no such UPS) and the events of
    /// each of `events`, read together: one wait for a thread and one connection, as a UPS page
    /// asks (its chart, its marks, its outages and its list).
    package func slots(_ query: HistoryQuery, events: [HistoryEventQuery])
        async -> Result<(slots: [HistorySlot]?, events: [[HistoryEvent]]), HistoryQueryError> {
        await answer { path in
            Self.withStore(path) { store throws(SQLiteError) -> (slots: [HistorySlot]?, events: [[HistoryEvent]]) in
                var found: [[HistoryEvent]] = []
                for each in events { found.append(try Self.events(each, in: store)) }
                return (try Self.slots(query, in: store), found)
            }.map { $0 ?? (nil, events.map { _ in [] }) }
        }
    }

    /// Runs `read` with the database's path on a reader thread, within the waiting bound.
    private func answer<T: Sendable>(_ read: @escaping @Sendable (String) -> Result<T, HistoryQueryError>) async -> Result<T, HistoryQueryError> {
        guard waiting.add(1, ordering: .relaxed).newValue <= Self.maxWaiting else {
            waiting.subtract(1, ordering: .relaxed)
            return .failure(HistoryQueryError("the history is answering \(Self.maxWaiting) queries; try again", status: 503))
        }
        defer { waiting.subtract(1, ordering: .relaxed) }
        let path = self.path
        do {
            return try await queue.perform { read(path) }
        } catch {
            return .failure(HistoryQueryError("the history cannot be read now: \(error)", status: 503))
        }
    }

    /// On a reader thread: `body` with the database opened read-only (`nil` when there is no
    /// database yet, or one of an older schema the writer has not converted yet), then closed.
    static func withStore<T>(_ path: String, _ body: (HistoryStore) throws(SQLiteError) -> T) -> Result<T?, HistoryQueryError> {
        do throws(SQLiteError) {
            var status = stat()
            if lstat(path, &status) != 0 && errno == ENOENT { return .success(nil) }
            let store = try HistoryStore(path: path, readOnly: true)
            defer { store.database.close() }
            guard store.openedVersion == HistoryStore.schemaVersion else { return .success(nil) }
            return .success(try body(store))
        } catch {
            return .failure(HistoryQueryError("the history database cannot be read: \(error)", status: 503))
        }
    }

    /// On a reader thread: the slots of `query`, `nil` when the UPS has none.
    static func read(_ query: HistoryQuery, path: String) -> Result<[HistorySlot]?, HistoryQueryError> {
        withStore(path) { store throws(SQLiteError) in try slots(query, in: store) }.map { $0 ?? nil }
    }

    /// The slots of `query` in an open store, `nil` when the UPS has none.
    private static func slots(_ query: HistoryQuery, in store: HistoryStore) throws(SQLiteError) -> [HistorySlot]? {
        guard try store.knows(query.ups) else { return nil }
        return try store.slots(of: query.ups, tier: query.tier, from: query.from, to: query.to)
    }

    /// The events of `query` in an open store, newest first.
    private static func events(_ query: HistoryEventQuery, in store: HistoryStore) throws(SQLiteError) -> [HistoryEvent] {
        try store.events(ups: query.ups, kinds: query.kinds, from: query.from, to: query.to, limit: query.limit)
    }
}
