#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

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
/// Numeric addresses are converted inline. A name is looked up on a dispatch worker while the
/// exchange waits on one end of a socket pair, which the worker closes when done; the wait is
/// bounded by the deadline and woken by cancellation (which shuts that socket down). A lookup
/// that outlives its exchange finishes in the background and its result is dropped.
struct HostResolver: Sendable {
    /// A blocking lookup of `host` for TCP `port`.
    typealias Lookup = @Sendable (_ host: String, _ port: Int) -> Result<[ResolvedAddress], HTTPClientError>

    /// The lookup used for names (numeric addresses never reach it).
    let lookup: Lookup

    /// `getaddrinfo` with the system's configuration.
    static let system = HostResolver(lookup: systemLookup)

    /// The addresses of `host`, in the order to try them.
    ///
    /// - Throws: ``HTTPClientError`` of kind `hostNotFound`, `timeout`, `cancelled`, or `network`
    ///   when no socket pair could be made.
    func resolve(host: String, port: Int, deadline: Deadline,
                 cancellation: ExchangeCancellation) throws(HTTPClientError) -> [ResolvedAddress] {
        try cancellation.check()
        if Self.isNumeric(host) { return try Self.systemLookup(host: host, port: port).get() }
        var ends: [Int32] = [-1, -1]
        guard System.socketPair(&ends) == 0 else {
            throw HTTPClientError(.network, "cannot create a socket pair to resolve \(host): \(errorText(errno))")
        }
        let outcome = Outcome()
        let lookup = self.lookup
        let workerEnd = ends[1]
        DispatchQueue.global(qos: .utility).async {
            outcome.store(lookup(host, port))
            _ = System.close(workerEnd) // end of stream on the waiting end: the result is in
        }
        let waiting = ClientSocket(descriptor: ends[0])
        cancellation.attach(waiting.descriptor)
        defer { waiting.close(detachingFrom: cancellation) }
        try waiting.wait(for: Int16(POLLIN), deadline: deadline, cancellation: cancellation,
                         doing: "resolving \(host)")
        try cancellation.check() // a shutdown by cancel() also wakes the wait
        guard let result = outcome.result else {
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
            let reason = status == EAI_SYSTEM ? errorText(code)
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

    /// The lookup's result, handed from the worker to the waiting exchange.
    private final class Outcome: Sendable {
        private let value = Mutex<Result<[ResolvedAddress], HTTPClientError>?>(nil)
        func store(_ result: Result<[ResolvedAddress], HTTPClientError>) { value.withLock { $0 = result } }
        var result: Result<[ResolvedAddress], HTTPClientError>? { value.withLock { $0 } }
    }
}
