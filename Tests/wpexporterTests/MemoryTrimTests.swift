import Testing
import WPTestThreads
@testable import wpexporter

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct MemoryTrimTests {
    /// The settings reach glibc: the C shim once tested `__GLIBC__` before including any libc
    /// header, which compiled every function as a no-op and left RSS at glibc's defaults.
    @Test func glibcAcceptsTheSettings() {
        #if canImport(Glibc)
        #expect(MemoryTrim.configure())
        #else
        #expect(!MemoryTrim.configure())
        #endif
    }
}
