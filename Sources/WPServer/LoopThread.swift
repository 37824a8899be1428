import WPCSystem
import Glibc

/// Starts the server's dedicated threads, the event loop's and the bcrypt workers' (plain
/// pthreads: no Foundation needed).
enum LoopThread {
    private final class Box {
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread named `name`; returns an error when the thread
    /// cannot be created (and then `body` never runs).
    static func start(name: String = "http-loop", _ body: @escaping @Sendable () -> Void) -> HTTPServerError? {
        let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
            cs_set_thread_name(box.name)
            box.body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return .system(operation: "pthread_create", reason: String(cString: strerror(status)))
        }
        pthread_detach(thread)
        return nil
    }
}
