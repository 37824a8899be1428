#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import Testing
import WPTestThreads
import WPRuntime
@testable import WPHTTPClient

/// Name resolution bounded by the exchange's deadline and cancellation, with a scripted lookup
/// standing in for `getaddrinfo`.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HostResolverTests {
    /// A lookup that blocks until released, saying when it has started.
    final class BlockingLookup: Sendable {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let calls = Mutex<[String]>([])
        var hosts: [String] { calls.withLock { $0 } }

        var resolver: HostResolver {
            HostResolver { host, _ in
                self.calls.withLock { $0.append(host) }
                self.started.signal()
                self.release.wait()
                return .success([])
            }
        }
    }

    private static let address = ResolvedAddress(family: 2, socketAddress: [1, 2, 3])

    /// A name no lookup can resolve and no resolver sends a query for: its first label is
    /// longer than DNS allows (63 bytes), so the C library refuses it before building a query.
    /// (`no-such-host.invalid` would be asked of the configured name server, off this machine.)
    static let unresolvableHost = String(repeating: "a", count: 64) + ".invalid"

    @Test func namesGoThroughTheLookupAndItsAnswerComesBack() throws {
        let seen = Mutex<[String]>([])
        let resolver = HostResolver { host, port in
            seen.withLock { $0.append("\(host):\(port)") }
            return host == "ups.example" ? .success([Self.address])
                : .failure(HTTPClientError(.hostNotFound, "cannot resolve \(host): unknown"))
        }
        let found = try resolver.resolve(host: "ups.example", port: 8081, deadline: Deadline(after: .seconds(60)),
                                         cancellation: ExchangeCancellation())
        #expect(found == [Self.address])
        #expect(throws: HTTPClientError(.hostNotFound, "cannot resolve other.example: unknown")) {
            try resolver.resolve(host: "other.example", port: 80, deadline: Deadline(after: .seconds(60)),
                                 cancellation: ExchangeCancellation())
        }
        #expect(seen.withLock { $0 } == ["ups.example:8081", "other.example:80"])
    }

    @Test func addressLiteralsNeverReachTheLookup() throws {
        let lookup = BlockingLookup()
        for host in ["127.0.0.1", "::1"] {
            let found = try lookup.resolver.resolve(host: host, port: 80, deadline: Deadline(after: .seconds(60)),
                                                    cancellation: ExchangeCancellation())
            #expect(!found.isEmpty, "\(host)")
        }
        #expect(lookup.hosts.isEmpty)
        #expect(HostResolver.isNumeric("192.0.2.1") && HostResolver.isNumeric("2001:db8::1"))
        #expect(!HostResolver.isNumeric("localhost") && !HostResolver.isNumeric("192.0.2.1.example"))
    }

    /// Runs a resolution that blocks on a thread of its own, so the pool stays free for the
    /// rest of the suite.
    private static func resolving(_ resolver: HostResolver, _ host: String, deadline: Duration,
                                  cancellation: ExchangeCancellation = ExchangeCancellation())
        async throws -> Result<[ResolvedAddress], HTTPClientError> {
        try await NamedThread.run(name: "test-resolve") {
            Result { () throws(HTTPClientError) in
                try resolver.resolve(host: host, port: 80, deadline: Deadline(after: deadline), cancellation: cancellation)
            }
        }
    }

    @Test func aLookupStillRunningAtTheDeadlineIsATimeoutNamingTheHost() async throws {
        let lookup = BlockingLookup()
        defer { lookup.release.signal() }
        let result = try await Self.resolving(lookup.resolver, "slow-dns.example", deadline: .milliseconds(50))
        #expect(throws: HTTPClientError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.kind == .timeout)
            #expect(error.description.contains("resolving slow-dns.example"))
        }
        // On a loaded machine the lookup's worker may only start after the deadline passed.
        try await NamedThread.run(name: "test-wait") { lookup.started.wait() }
        #expect(lookup.hosts == ["slow-dns.example"])
    }

    @Test func cancellingWakesAWaitOnAHungLookup() async throws {
        let lookup = BlockingLookup()
        defer { lookup.release.signal() }
        let cancellation = ExchangeCancellation()
        try NamedThread.start(name: "test-cancel") {
            lookup.started.wait()
            cancellation.cancel()
        }
        let result = try await Self.resolving(lookup.resolver, "hung-dns.example", deadline: .seconds(600),
                                              cancellation: cancellation)
        #expect(throws: HTTPClientError.self) { try result.get() }
        if case .failure(let error) = result { #expect(error.kind == .cancelled) }
    }

    @Test func theSystemLookupFindsLocalhostAndRejectsAnInvalidName() async throws {
        let found = try await Self.resolving(.system, "localhost", deadline: .seconds(60)).get()
        #expect(!found.isEmpty)
        let family = try #require(found.first?.family)
        #expect(family == Int32(AF_INET) || family == Int32(AF_INET6))
        let unresolvable = try await Self.resolving(.system, Self.unresolvableHost, deadline: .seconds(60))
        #expect(throws: HTTPClientError.self) { try unresolvable.get() }
    }
}
