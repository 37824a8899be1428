import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Turns SIGHUP into a stream of reload requests.
///
/// SIGHUP's default action (terminate) is ignored while the watcher exists, so a reload signal
/// never kills the exporter. Signals arriving while a reload is pending are coalesced into it.
/// Only `main` creates one: it changes a process-wide signal disposition.
final class HangupWatcher: Sendable {
    private let source: Mutex<(any DispatchSourceSignal)?>
    /// One element per burst of SIGHUPs not yet consumed.
    let requests: AsyncStream<Void>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        requests = stream
        signal(SIGHUP, SIG_IGN)
        let made = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "wpexporter.sighup"))
        made.setEventHandler { continuation.yield() }
        made.resume()
        source = Mutex(made)
    }

    deinit {
        source.withLock { $0?.cancel() }
    }
}
