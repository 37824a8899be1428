import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A tiny scripted HTTP server on a real socket (127.0.0.1, port 0) for the client's tests:
/// it answers each request with whatever bytes the test scripts, so it can send malformed,
/// chunked, close-delimited or no responses, and it counts accepted connections.
///
/// Each connection is served by a blocking loop on its own thread (not on dispatch's shared
/// pool, which the client under test also uses); ``stop()`` shuts every socket down and waits
/// for the loops to end.
final class RawServer: Sendable {
    /// What to do with one request.
    enum Reply: Sendable {
        /// Send these bytes, then keep the connection open for the next request.
        case send(String)
        /// Send these bytes, then close the connection.
        case sendAndClose(String)
        /// Close the connection without answering.
        case close
        /// Never answer; keep the connection open until the server stops.
        case silence
    }

    /// One request as received.
    struct Request: Sendable {
        var connection: Int
        var head: String
    }

    typealias Script = @Sendable (_ connection: Int, _ index: Int, _ head: String) -> Reply

    let port: Int
    private let listener: Int32
    private let script: Script
    private let group = DispatchGroup()
    private let state = Mutex(State())
    private let continuation: AsyncStream<Request>.Continuation
    /// Every request, as it arrives.
    let requests: AsyncStream<Request>

    private struct State {
        var accepted = 0
        var open: Set<Int32> = []
        var stopping = false
    }

    /// Binds 127.0.0.1 on an ephemeral port and starts accepting.
    init(_ script: @escaping Script) throws {
        self.script = script
        (requests, continuation) = AsyncStream.makeStream()
        let (descriptor, port) = try Self.listen()
        listener = descriptor
        self.port = port
        group.enter()
        Thread.detachNewThread { [self] in
            acceptLoop()
            group.leave()
        }
    }

    /// Connections accepted so far.
    var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// Shuts every socket down and waits until all loops ended.
    func stop() async {
        state.withLock { state in
            state.stopping = true
            _ = shutdown(listener, Int32(SHUT_RDWR))
            for descriptor in state.open { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { done.resume() }
        }
        close(listener)
        continuation.finish()
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let index: Int? = state.withLock { state in
                guard !state.stopping else { return nil }
                state.accepted += 1
                state.open.insert(connection)
                return state.accepted
            }
            guard let index else {
                close(connection)
                return
            }
            group.enter()
            Thread.detachNewThread { [self] in
                serve(connection, index: index)
                state.withLock { _ = $0.open.remove(connection) }
                close(connection)
                group.leave()
            }
        }
    }

    private func serve(_ connection: Int32, index: Int) {
        var pending: [UInt8] = []
        var requestIndex = 0
        while let head = Self.readRequest(connection, pending: &pending) {
            requestIndex += 1
            let reply = script(index, requestIndex, head)
            continuation.yield(Request(connection: index, head: head))
            switch reply {
            case .send(let text):
                guard Self.write(connection, text) else { return }
            case .sendAndClose(let text):
                _ = Self.write(connection, text)
                return
            case .close:
                return
            case .silence:
                var byte: UInt8 = 0
                while recv(connection, &byte, 1, 0) > 0 {}
                return
            }
        }
    }

    /// The next request head (its body, by Content-Length, is read and dropped); nil at EOF.
    private static func readRequest(_ connection: Int32, pending: inout [UInt8]) -> String? {
        let terminator = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = pending.firstRange(of: terminator) {
                let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                pending.removeSubrange(..<end.upperBound)
                let length = head.split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).filter { $0 != " " }) } ?? 0
                while pending.count < length {
                    let count = recv(connection, &chunk, chunk.count, 0)
                    guard count > 0 else { return nil }
                    pending += chunk[..<count]
                }
                pending.removeFirst(length)
                return head
            }
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }

    private static func write(_ connection: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    struct SocketError: Error, CustomStringConvertible {
        var description: String
    }

    /// A listening socket on 127.0.0.1 and its port.
    static func listen() throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw SocketError(description: "bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A loopback port nothing listens on: bound a moment ago, then closed.
    static func closedPort() throws -> Int {
        let (descriptor, port) = try listen()
        close(descriptor)
        return port
    }
}

/// Runs `body` with a ``RawServer`` answering by `script`, and always stops it.
func withRawServer<T>(_ script: @escaping RawServer.Script,
                      _ body: (RawServer) async throws -> T) async throws -> T {
    let server = try RawServer(script)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
