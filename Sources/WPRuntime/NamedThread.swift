import WPPOSIX
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the libraries start a thread of their own: a plain detached pthread with a
/// name, never a thread of Dispatch's or Swift's shared pools, so blocking work on it (a
/// socket, `fsync`, DNS, an event loop) cannot starve either.
///
/// ```swift
/// try NamedThread.start(name: "state-writer") { writer.drain() }
/// ```
public enum NamedThread {
    /// Runs `body` on a new detached thread named `name` (at most 15 bytes show, the Linux
    /// limit for `/proc/PID/task/*/comm`).
    ///
    /// - Throws: ``ThreadStartError`` when the system refuses a thread (then `body` never runs).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        let box = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let status = pthread_create(&thread, nil, { argument in
            Unmanaged<Start>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, box)
        if status == 0, let thread { pthread_detach(thread) }
        #else
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<Start>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, box)
        if status == 0 { pthread_detach(thread) }
        #endif
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(box).release()
            throw ThreadStartError(name: name, code: status)
        }
    }

    /// Runs blocking `body` on a new thread named `name` and returns what it returns, holding
    /// no thread of Swift's pool while it runs (the calling task is suspended). For work that
    /// must block — a system call with no non-blocking form, a library's wait — called from
    /// async code.
    ///
    /// - Throws: what `body` throws, or ``ThreadStartError`` when the thread cannot start.
    public static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            do throws(ThreadStartError) {
                try start(name: name) { continuation.resume(with: Result { try body() }) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Names the calling thread; a name that cannot be set is left as it is.
    public static func setCurrentName(_ name: String) {
        let bounded = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        #if canImport(Darwin)
        _ = pthread_setname_np(bounded)
        #else
        // Glibc declares pthread_setname_np only with _GNU_SOURCE, which Swift's Glibc module
        // does not define, so it is looked up once in the running process instead.
        guard let setName = linuxSetName else { return }
        _ = bounded.withCString { setName(pthread_self(), $0) }
        #endif
    }

    #if !canImport(Darwin)
    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32

    private static let linuxSetName: SetName? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pthread_setname_np") else { return nil }
        return unsafeBitCast(symbol, to: SetName.self)
    }()
    #endif

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        func run() {
            NamedThread.setCurrentName(name)
            body()
        }
    }
}

/// The system refused to create a thread (`pthread_create` failed: a thread or memory limit).
public struct ThreadStartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name the thread was to have.
    public let name: String
    /// `pthread_create`'s error number (`EAGAIN` at a thread limit).
    public let code: Int32

    /// Creates the error for the thread `name` that `pthread_create` refused with `code`.
    public init(name: String, code: Int32) {
        self.name = name
        self.code = code
    }

    /// `cannot start thread <name>: <strerror(code)>`.
    public var description: String {
        "cannot start thread \(name): \(systemErrorText(code))"
    }
}
