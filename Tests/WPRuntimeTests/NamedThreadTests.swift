#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WPTestThreads
import WPRuntime

private extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NamedThreadTests {
    private struct Refused: Error, Equatable {}

    /// The calling thread's name, as the kernel shows it.
    static func currentName() -> String {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor, &buffer, buffer.count)
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).trimmingSuffix("\n")
    }

    /// `run` hands back the body's result, computed on a thread of that name, not on the
    /// caller's.
    @Test func runReturnsWhatTheBodyReturnsFromANamedThread() async throws {
        let caller = pthread_self()
        let (name, sameThread) = try await NamedThread.run(name: "test-blocking") {
            (Self.currentName(), pthread_equal(pthread_self(), caller) != 0)
        }
        #expect(name == "test-blocking")
        #expect(!sameThread)
    }

    @Test func runRethrowsWhatTheBodyThrows() async {
        await #expect(throws: Refused()) {
            try await NamedThread.run(name: "test-throwing") { () throws -> Int in throw Refused() }
        }
    }
}
