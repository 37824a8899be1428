import WPCSystem
import Glibc
import Synchronization

/// `Date` header values, formatted at most once per second.
///
/// Owned by one event loop; safe to call from any thread.
final class HTTPDate: Sendable {
    private let cache = Mutex<(second: Int, text: String)>((-1, ""))

    /// The current time as an IMF-fixdate.
    func now() -> String {
        let second = time(nil)
        if let cached = cache.withLock({ $0.second == second ? $0.text : nil }) { return cached }
        let text = Self.format()
        cache.withLock { $0 = (second, text) }
        return text
    }

    static func format() -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buffer in
            let count = cs_http_date(buffer.baseAddress, 40)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: max(0, Int(count))),
                          as: UTF8.self)
        }
    }
}
