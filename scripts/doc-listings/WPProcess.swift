// parameters: store: Store, continuation: AsyncStream<Void>.Continuation, log: WPLogger, server: Server, reload: @escaping @Sendable () async -> Void
import Glibc
import WPLogging
import WPProcess

fileprivate final class Store: Sendable { func persist(timeout: Duration) {} }
fileprivate final class Server: Sendable { func run() async throws {} }
