import FoundationEssentials
import WPRuntime

extension HTTPClient {
    /// Threads several clients run their exchanges on, so the number of threads follows the
    /// exchanges in flight, bounded by the pool, instead of the number of clients.
    ///
    /// A process talking to many servers (one client each) gives them one pool: without it,
    /// every client keeps a thread of its own between requests (up to its
    /// ``Configuration/threadIdleTime``), so 1,000 servers polled every few seconds hold 1,000
    /// threads. With it, threads start on demand up to ``maxThreads`` and end after
    /// ``idleTime`` without work; each client still runs at most its
    /// ``Configuration/maxThreads`` exchanges at once, so one unresponsive server holds at most
    /// that many of the pool's threads. Exchanges beyond what the pool runs wait in submission
    /// order; one still waiting when its request's deadline passes fails with a time-out.
    ///
    /// ```swift
    /// let pool = HTTPClient.ThreadPool()
    /// var configuration = HTTPClient.Configuration()
    /// configuration.threadPool = pool
    /// configuration.maxThreads = 2
    /// let clients = servers.map { _ in HTTPClient(configuration: configuration) }
    /// ```
    package final class ThreadPool: Sendable, Equatable {
        /// The pool's size when none is given: 8 threads per core, at least 32. The threads
        /// mostly wait on the network, so there are more than cores; an exchange holds its
        /// thread until its deadline at most, so as many servers as the pool has threads can
        /// hang at once before the others' requests wait for a thread.
        package static var defaultMaxThreads: Int { max(32, 8 * ProcessInfo.processInfo.activeProcessorCount) }

        /// The most threads running exchanges at once, over all clients of the pool.
        package var maxThreads: Int { queue.maxThreads }
        /// How long a thread with no exchange to run waits before it ends.
        package var idleTime: Duration { queue.idleTime }
        let queue: WorkerQueue

        /// A pool whose threads are named `name`.
        ///
        /// - Parameters:
        ///   - maxThreads: the most threads at once; ``defaultMaxThreads`` by default.
        ///   - idleTime: how long an idle thread lives; 30 s by default.
        ///   - name: the threads' name; `http-client` by default.
        package convenience init(maxThreads: Int = ThreadPool.defaultMaxThreads, idleTime: Duration = .seconds(30),
                                name: String = "http-client") {
            self.init(maxThreads: maxThreads, idleTime: idleTime, name: name,
                      starter: { name, body throws(ThreadStartError) in try NamedThread.start(name: name, body) })
        }

        init(maxThreads: Int, idleTime: Duration, name: String, starter: @escaping WorkerQueue.Starter) {
            queue = WorkerQueue(name: name, maxThreads: maxThreads, idleTime: idleTime,
                                spinsBeforeSleeping: ExchangeThreads.spinsBeforeSleeping, starter: starter)
        }

        /// Threads alive now (starting, running or idle).
        package var threadCount: Int { queue.threadCount }

        /// Pools are equal only to themselves.
        package static func == (lhs: ThreadPool, rhs: ThreadPool) -> Bool { lhs === rhs }
    }
}
