import Foundation
import Synchronization

/// Paths handed out by ``temporaryPathRemovedAtExit(_:)``: removed when the test process exits.
private let pathsRemovedAtExit = Mutex<[String]?>(nil)

/// A fresh path `<prefix>-<UUID>` in the temporary directory (not created), removed with
/// what it holds when the test process exits: for a directory a test harness hands to a
/// restarted exporter, which outlives the harness that made it.
package func temporaryPathRemovedAtExit(_ prefix: String) -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    let first = pathsRemovedAtExit.withLock { paths in
        defer { paths = (paths ?? []) + [path] }
        return paths == nil
    }
    if first {
        atexit {
            for path in pathsRemovedAtExit.withLock({ $0 ?? [] }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }
    return path
}
