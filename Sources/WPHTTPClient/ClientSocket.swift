#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WPPOSIX
package import WPRuntime

/// A connected, non-blocking TCP socket whose every wait is bounded by a ``Deadline`` and
/// interrupted by an ``ExchangeCancellation``.
///
/// Not thread-safe: one exchange uses it at a time. Copies share the descriptor; exactly one
/// owner closes it with ``close(detachingFrom:)``.
package struct ClientSocket {
    package let descriptor: Int32

    /// Resolves `host` and connects to the first address that accepts, within `deadline`.
    ///
    /// - Throws: ``HTTPClientError`` of kind `hostNotFound`, `connectionRefused`, `timeout`,
    ///   `cancelled` or `network`.
    package static func connect(host: String, port: Int, deadline: Deadline, cancellation: ExchangeCancellation,
                                resolver: HostResolver = .system) throws(HTTPClientError) -> ClientSocket {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let addresses = try resolver.resolve(host: host, port: port, deadline: deadline, cancellation: cancellation)
        var lastError = HTTPClientError(.network, "no address to connect to for \(authority)")
        for address in addresses {
            do throws(HTTPClientError) {
                return try connect(to: address, authority: authority, deadline: deadline, cancellation: cancellation)
            } catch {
                if error.kind == .timeout || error.kind == .cancelled { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    private static func connect(to address: ResolvedAddress, authority: String, deadline: Deadline,
                                cancellation: ExchangeCancellation) throws(HTTPClientError) -> ClientSocket {
        let descriptor = socket(address.family, System.stream | System.socketFlags, 0)
        guard descriptor >= 0 else {
            throw HTTPClientError(.network, "cannot create a socket: \(systemErrorText(errno))")
        }
        let socket = ClientSocket(descriptor: descriptor)
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        #endif
        cancellation.attach(descriptor)
        do throws(HTTPClientError) {
            let started = address.socketAddress.withUnsafeBytes { bytes in
                System.connect(descriptor, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self),
                               socklen_t(bytes.count))
            }
            if started != 0 {
                let code = errno
                guard code == EINPROGRESS || code == EINTR else { throw connectError(code, authority) }
                try socket.wait(for: Int16(POLLOUT), deadline: deadline, cancellation: cancellation,
                                doing: "connecting to \(authority)")
                var socketError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length) == 0 else {
                    throw connectError(errno, authority)
                }
                if socketError != 0 { throw connectError(socketError, authority) }
            }
            try cancellation.check()
        } catch {
            socket.close(detachingFrom: cancellation)
            throw error
        }
        return socket
    }

    private static func connectError(_ code: Int32, _ authority: String) -> HTTPClientError {
        if code == ECONNREFUSED {
            return HTTPClientError(.connectionRefused, "connection to \(authority) refused")
        }
        return HTTPClientError(.network, "cannot connect to \(authority): \(systemErrorText(code))")
    }

    /// Waits until the socket is ready for `events` (readable also on EOF or error).
    func wait(for events: Int16, deadline: Deadline, cancellation: ExchangeCancellation,
              doing activity: @autoclosure () -> String) throws(HTTPClientError) {
        while true {
            try cancellation.check()
            let timeout = deadline.remainingMilliseconds
            if timeout == 0 { throw HTTPClientError(.timeout, "timed out \(activity())") }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(timeout))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw HTTPClientError(.network, "poll failed \(activity()): \(systemErrorText(errno))")
            }
        }
    }

    /// Writes all of `bytes` (never raising SIGPIPE).
    ///
    /// - Throws: `timeout`, `cancelled`, or `network` with the system's reason.
    package func write(_ bytes: [UInt8], deadline: Deadline, cancellation: ExchangeCancellation,
                       authority: String) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            try cancellation.check()
            let sent = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset, System.sendFlags)
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(for: Int16(POLLOUT), deadline: deadline, cancellation: cancellation,
                         doing: "sending the request to \(authority)")
            } else {
                try cancellation.check()
                throw HTTPClientError(.network, "sending the request to \(authority) failed: \(systemErrorText(errno))")
            }
        }
    }

    /// Reads what is available into `buffer`; 0 means the peer closed the connection.
    ///
    /// - Throws: `timeout`, `cancelled`, or `network` with the system's reason.
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: Deadline, cancellation: ExchangeCancellation,
              authority: String) throws(HTTPClientError) -> Int {
        while true {
            try cancellation.check()
            let received: Int?
            do throws(HTTPClientError) {
                received = try readAvailable(into: buffer, authority: authority)
            } catch {
                try cancellation.check()
                throw HTTPClientError(.network, "reading the response from \(authority) failed: \(error.detail)")
            }
            if let received {
                try cancellation.check() // a shutdown by cancel() reads as end of stream
                return received
            }
            try wait(for: Int16(POLLIN), deadline: deadline, cancellation: cancellation,
                     doing: "waiting for the response from \(authority)")
        }
    }

    /// Reads what is available without waiting: the count of bytes (0 when the peer closed
    /// the connection), or nil when nothing is there yet (as ``TLSClientStream``'s).
    ///
    /// - Throws: `network` with the system's reason.
    package func readAvailable(into buffer: UnsafeMutableRawBufferPointer, authority: String) throws(HTTPClientError) -> Int? {
        let received = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        if received >= 0 { return received }
        let code = errno
        guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else { throw HTTPClientError(.network, systemErrorText(code)) }
        return nil
    }

    /// Whether an idle connection still looks usable: nothing to read, no EOF, no error.
    var isIdleAndOpen: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Closes the socket, first making sure cancellation no longer refers to it.
    package func close(detachingFrom cancellation: ExchangeCancellation? = nil) {
        cancellation?.detach(descriptor)
        _ = System.close(descriptor)
    }
}

/// The platform's socket constants and the calls whose names the socket type shadows.
enum System {
    #if canImport(Glibc)
    static var stream: Int32 { Int32(SOCK_STREAM.rawValue) }
    static var socketFlags: Int32 { Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue) }
    static var sendFlags: Int32 { Int32(MSG_NOSIGNAL) }
    static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
        Glibc.connect(fd, address, length)
    }
    static func close(_ fd: Int32) -> Int32 { Glibc.close(fd) }
    /// A connected pair of local stream sockets, closed on exec.
    static func socketPair(_ ends: inout [Int32]) -> Int32 {
        socketpair(AF_UNIX, stream | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
    }
    #else
    static var stream: Int32 { SOCK_STREAM }
    static var socketFlags: Int32 { 0 }
    static var sendFlags: Int32 { 0 } // SO_NOSIGPIPE is set on the socket instead
    static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
        Darwin.connect(fd, address, length)
    }
    static func close(_ fd: Int32) -> Int32 { Darwin.close(fd) }
    /// A connected pair of local stream sockets.
    static func socketPair(_ ends: inout [Int32]) -> Int32 {
        socketpair(AF_UNIX, stream, 0, &ends)
    }
    #endif
}

