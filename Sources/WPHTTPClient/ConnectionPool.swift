import Synchronization

/// At most one idle kept-alive connection per host and port.
///
/// A connection is taken out for the length of one exchange and put back only when its
/// response was complete and persistent; a second connection parked for the same key closes
/// the older one. Idle connections close with the pool.
final class ConnectionPool: Sendable {
    private struct Idle {
        var socket: ClientSocket
        var parkedAt: ContinuousClock.Instant
    }

    private let idle = Mutex<[String: Idle]>([:])
    private let maxIdleTime: Duration

    init(maxIdleTime: Duration) {
        self.maxIdleTime = maxIdleTime
    }

    /// The idle connection for `key`, if one is still open and young enough.
    func take(_ key: String) -> ClientSocket? {
        guard let entry = idle.withLock({ $0.removeValue(forKey: key) }) else { return nil }
        guard entry.parkedAt.duration(to: .now) < maxIdleTime, entry.socket.isIdleAndOpen else {
            entry.socket.close()
            return nil
        }
        return entry.socket
    }

    /// Keeps `socket` for the next request to `key`.
    func park(_ socket: ClientSocket, for key: String) {
        let replaced = idle.withLock { $0.updateValue(Idle(socket: socket, parkedAt: .now), forKey: key) }
        replaced?.socket.close()
    }

    /// How many idle connections are kept.
    var idleCount: Int { idle.withLock { $0.count } }

    // Closing the descriptors this pool owns when the client goes away: nothing else can
    // reach them by then, and leaving them open would leak one descriptor per host.
    deinit {
        idle.withLock { entries in
            for entry in entries.values { entry.socket.close() }
            entries.removeAll()
        }
    }
}
