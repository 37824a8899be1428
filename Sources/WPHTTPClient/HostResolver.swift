#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WPPOSIX
import Synchronization
import WPRuntime

/// One address a host name resolved to, copied out of `getaddrinfo`'s list.
struct ResolvedAddress: Sendable, Equatable {
    /// `AF_INET` or `AF_INET6`.
    let family: Int32
    /// The `sockaddr` bytes, as `connect` takes them.
    let socketAddress: [UInt8]
}

/// Resolves host names within an exchange's deadline.
///
/// `getaddrinfo` blocks and takes no timeout: with an unreachable DNS server it returns only
/// after the system resolver's own timeouts and retries (10 s and more with the defaults).
/// Numeric addresses are converted inline. A name is looked up on a thread of its own (named
/// `dns`, never one of Dispatch's or Swift's pools) while the exchange waits on one end of a
/// socket pair, which is closed when the answer is in; the wait is bounded by the deadline and
/// woken by cancellation (which shuts that socket down). Concurrent lookups of the same host
/// and port join the one in flight, so a resolver that hangs holds one thread per name, not
/// one per request. A lookup that outlives every exchange waiting for it finishes in the
/// background and its result is dropped.
package struct HostResolver: Sendable {
    /// A blocking lookup of `host` for TCP `port`.
    typealias Lookup = @Sendable (_ host: String, _ port: Int) -> Result<[ResolvedAddress], HTTPClientError>

    /// The lookup used for names (numeric addresses never reach it).
    let lookup: Lookup
    /// The lookups in flight, which later ones join.
    private let flights = Flights()

    /// A resolver using `lookup`, with lookups of its own to join.
    init(lookup: @escaping Lookup) {
        self.lookup = lookup
    }

    /// `getaddrinfo` with the system's configuration, shared by every client of the process.
    package static let system = HostResolver(lookup: systemLookup)

    /// Lookups in flight (at most one per host and port).
    var lookupsInFlight: Int { flights.count }

    /// Exchanges waiting for a lookup.
    var waitingExchanges: Int { flights.waiting }

    /// The addresses of `host`, in the order to try them.
    ///
    /// - Throws: ``HTTPClientError`` of kind `hostNotFound`, `timeout`, `cancelled`, or `network`
    ///   when no socket pair or thread could be made.
    func resolve(host: String, port: Int, deadline: Deadline,
                 cancellation: ExchangeCancellation) throws(HTTPClientError) -> [ResolvedAddress] {
        try cancellation.check()
        if Self.isNumeric(host) { return try Self.systemLookup(host: host, port: port).get() }
        var ends: [Int32] = [-1, -1]
        guard System.socketPair(&ends) == 0 else {
            throw HTTPClientError(.network, "cannot create a socket pair to resolve \(host): \(systemErrorText(errno))")
        }
        let waiter = Waiter(signal: ends[1])
        let key = Flights.Key(host: host, port: port)
        let waiting = ClientSocket(descriptor: ends[0])
        cancellation.attach(waiting.descriptor)
        defer {
            flights.leave(waiter, key: key)
            waiting.close(detachingFrom: cancellation)
        }
        if flights.join(waiter, key: key) {
            let lookup = self.lookup
            let flights = self.flights
            do throws(ThreadStartError) {
                try NamedThread.start(name: "dns") { flights.land(key, with: lookup(host, port)) }
            } catch {
                flights.land(key, with: .failure(HTTPClientError(.network, "cannot resolve \(host): \(error)")))
            }
        }
        try waiting.wait(for: Int16(POLLIN), deadline: deadline, cancellation: cancellation,
                         doing: "resolving \(host)")
        try cancellation.check() // a shutdown by cancel() also wakes the wait
        guard let result = waiter.result else {
            throw HTTPClientError(.network, "resolving \(host) ended without a result")
        }
        return try result.get()
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (no lookup needed).
    static func isNumeric(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

    /// `getaddrinfo` for a TCP connection to `host`:`port`.
    static func systemLookup(host: String, port: Int) -> Result<[ResolvedAddress], HTTPClientError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = System.stream
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        let code = errno
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else {
            let reason = status == EAI_SYSTEM ? systemErrorText(code)
                : gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"
            return .failure(HTTPClientError(.hostNotFound, "cannot resolve \(host): \(reason)"))
        }
        var addresses: [ResolvedAddress] = []
        var entry = list
        while let current = entry {
            entry = current.pointee.ai_next
            guard let address = current.pointee.ai_addr else { continue }
            let bytes = UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen))
            addresses.append(ResolvedAddress(family: current.pointee.ai_family, socketAddress: Array(bytes)))
        }
        guard !addresses.isEmpty else {
            return .failure(HTTPClientError(.hostNotFound, "cannot resolve \(host): no address"))
        }
        return .success(addresses)
    }

    /// One exchange waiting for a lookup: where the result goes, and the end of its socket
    /// pair to close once it is there.
    private final class Waiter: Sendable {
        let signal: Int32
        private let value = Mutex<Result<[ResolvedAddress], HTTPClientError>?>(nil)

        init(signal: Int32) { self.signal = signal }

        /// Stores `result` and closes ``signal``: end of stream on the waiting end.
        func deliver(_ result: Result<[ResolvedAddress], HTTPClientError>) {
            value.withLock { $0 = result }
            _ = System.close(signal)
        }

        var result: Result<[ResolvedAddress], HTTPClientError>? { value.withLock { $0 } }
    }

    /// The lookups in flight and who waits for each. A waiter's ``Waiter/signal`` is closed
    /// exactly once: by ``land(_:with:)`` when the waiter is still registered, else by
    /// ``leave(_:key:)``.
    private final class Flights: Sendable {
        struct Key: Hashable, Sendable {
            let host: String
            let port: Int
        }

        private let waiters = Mutex<[Key: [Waiter]]>([:])

        /// Registers `waiter` for `key`; `true` when no lookup was in flight, so the caller
        /// must start one (and end it with ``land(_:with:)``).
        func join(_ waiter: Waiter, key: Key) -> Bool {
            waiters.withLock { flights in
                if flights[key] != nil {
                    flights[key]?.append(waiter)
                    return false
                }
                flights[key] = [waiter]
                return true
            }
        }

        /// Ends the lookup of `key`: everyone still waiting gets `result`.
        func land(_ key: Key, with result: Result<[ResolvedAddress], HTTPClientError>) {
            let landed = waiters.withLock { $0.removeValue(forKey: key) } ?? []
            for waiter in landed { waiter.deliver(result) }
        }

        /// Unregisters `waiter` (answered, timed out or cancelled); the lookup goes on for the
        /// others, or in the background when none is left.
        func leave(_ waiter: Waiter, key: Key) {
            let registered = waiters.withLock { flights -> Bool in
                guard let index = flights[key]?.firstIndex(where: { $0 === waiter }) else { return false }
                flights[key]?.remove(at: index)
                return true
            }
            if registered { _ = System.close(waiter.signal) }
        }

        /// Keys with a lookup in flight.
        var count: Int { waiters.withLock { $0.count } }

        /// Waiters registered, all keys together.
        var waiting: Int { waiters.withLock { $0.values.reduce(0) { $0 + $1.count } } }
    }
}
