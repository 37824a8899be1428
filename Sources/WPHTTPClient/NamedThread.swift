#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the client's own threads: plain detached pthreads with a name, never a thread of
/// Dispatch's or Swift's shared pools.
enum NamedThread {
    private final class Box {
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread named `name` (at most 15 bytes, the Linux limit,
    /// to show in `/proc/PID/task/*/comm`).
    ///
    /// - Returns: `nil`, or the reason the thread could not be created (and `body` never runs).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> String? {
        let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let status = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
            NamedThread.setCurrentName(box.name)
            box.body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return errorText(status)
        }
        if let thread { pthread_detach(thread) }
        #else
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
            NamedThread.setCurrentName(box.name)
            box.body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return errorText(status)
        }
        pthread_detach(thread)
        #endif
        return nil
    }

    /// Names the calling thread; a name that cannot be set is left as it is.
    static func setCurrentName(_ name: String) {
        #if canImport(Darwin)
        _ = pthread_setname_np(name)
        #else
        // Glibc declares pthread_setname_np only with _GNU_SOURCE, which Swift's Glibc module
        // does not define, so it is looked up once in the running process instead.
        guard let setName = linuxSetName else { return }
        _ = String(name.utf8.prefix(15))?.withCString { setName(pthread_self(), $0) }
        #endif
    }

    #if !canImport(Darwin)
    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32

    private static let linuxSetName: SetName? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pthread_setname_np") else { return nil }
        return unsafeBitCast(symbol, to: SetName.self)
    }()
    #endif
}
