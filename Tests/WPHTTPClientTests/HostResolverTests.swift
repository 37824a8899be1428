#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import Testing
import WPRuntime
@testable import WPHTTPClient

/// Name resolution bounded by the exchange's deadline and cancellation, with a scripted lookup
/// standing in for `getaddrinfo`.
@Suite(.timeLimit(.minutes(1))) struct HostResolverTests {
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

    @Test func aLookupStillRunningAtTheDeadlineIsATimeoutNamingTheHost() {
        let lookup = BlockingLookup()
        defer { lookup.release.signal() }
        do {
            _ = try lookup.resolver.resolve(host: "slow-dns.example", port: 80, deadline: Deadline(after: .milliseconds(50)),
                                            cancellation: ExchangeCancellation())
            Issue.record("expected a timeout")
        } catch {
            #expect(error.kind == .timeout)
            #expect(error.description.contains("resolving slow-dns.example"))
        }
        // On a loaded machine the lookup's worker may only start after the deadline passed.
        lookup.started.wait()
        #expect(lookup.hosts == ["slow-dns.example"])
    }

    @Test func cancellingWakesAWaitOnAHungLookup() {
        let lookup = BlockingLookup()
        defer { lookup.release.signal() }
        let cancellation = ExchangeCancellation()
        DispatchQueue.global().async {
            lookup.started.wait()
            cancellation.cancel()
        }
        do {
            _ = try lookup.resolver.resolve(host: "hung-dns.example", port: 80, deadline: Deadline(after: .seconds(600)),
                                            cancellation: cancellation)
            Issue.record("expected cancellation")
        } catch {
            #expect(error.kind == .cancelled)
        }
    }

    @Test func theSystemLookupFindsLocalhostAndRejectsAnInvalidName() throws {
        let found = try HostResolver.system.resolve(host: "localhost", port: 80, deadline: Deadline(after: .seconds(60)),
                                                    cancellation: ExchangeCancellation())
        #expect(!found.isEmpty)
        let family = try #require(found.first?.family)
        #expect(family == Int32(AF_INET) || family == Int32(AF_INET6))
        #expect(throws: HTTPClientError.self) {
            try HostResolver.system.resolve(host: "no-such-host.invalid", port: 80, deadline: Deadline(after: .seconds(60)),
                                            cancellation: ExchangeCancellation())
        }
    }
}
