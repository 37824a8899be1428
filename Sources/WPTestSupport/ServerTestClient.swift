import WPCSystem
import Foundation
import Synchronization

/// A raw HTTP/1.1 client for server tests: exact bytes out, parsed responses in.
///
/// Blocking socket calls run on a dedicated thread each, never on the Swift concurrency
/// pool, so a test waiting for the server cannot starve the server's handler tasks. Reads
/// give up after 10 s (a safety net against hangs, not a timing assertion).
package final class TestHTTPClient: Sendable {
    /// A response as received.
    package struct Response: Sendable {
        package var status: Int
        /// Header fields in order, names as sent.
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]

        /// The first value of `name`, case-insensitively.
        package func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    package enum ClientError: Error, Equatable {
        case connect(String)
        case closed
        case malformed(String)
        case io(String)
    }

    private let descriptor: Int32
    private let buffer = Mutex<[UInt8]>([])

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to `host:port`. `receiveBufferSize` shrinks the socket's receive buffer
    /// (to make a peer that stops reading block the server quickly).
    package static func connect(port: Int, host: String = "127.0.0.1",
                               receiveBufferSize: Int = 0) async throws -> TestHTTPClient {
        let descriptor = try await offload { cs_connect(host, Int32(port), Int32(receiveBufferSize)) }
        guard descriptor >= 0 else { throw ClientError.connect(String(cString: cs_listen_error(descriptor))) }
        return TestHTTPClient(descriptor: descriptor)
    }

    /// Connects to `host:port` and sends `request` on the same thread at once: no task switch
    /// between the two, so a test process short of CPU never leaves the connection without a
    /// request for longer than the server's head timeout (which closes it unanswered).
    package static func connect(port: Int, host: String = "127.0.0.1", sending request: String) async throws -> TestHTTPClient {
        let bytes = Array(request.utf8)
        let descriptor = try await offload { () throws -> Int32 in
            let descriptor = cs_connect(host, Int32(port), 0)
            guard descriptor >= 0 else { throw ClientError.connect(String(cString: cs_listen_error(descriptor))) }
            do {
                try send(bytes, on: descriptor)
            } catch {
                _ = cs_close(descriptor)
                throw error
            }
            return descriptor
        }
        return TestHTTPClient(descriptor: descriptor)
    }

    package func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    package func send(_ bytes: [UInt8]) async throws {
        let descriptor = self.descriptor
        try await Self.offload { try Self.send(bytes, on: descriptor) }
    }

    /// Sends all of `bytes`, blocking.
    private static func send(_ bytes: [UInt8], on descriptor: Int32) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                cs_send2(descriptor, raw.baseAddress! + sent, raw.count - sent, nil, 0)
            }
            guard count > 0 else { throw ClientError.io("send: \(-count)") }
            sent += count
        }
    }

    /// Reads one response. For a response to `HEAD`, pass `isHead` so no body is expected.
    package func readResponse(isHead: Bool = false) async throws -> Response {
        let head = try await readUntilHeadEnd()
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw ClientError.malformed("status line '\(lines[0])'")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw ClientError.malformed("header '\(line)'") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = Response(status: status, headers: headers, body: [])
        if isHead || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try await readExactly(length)
        } else {
            response.body = try await readToEnd()
        }
        return response
    }

    /// Reads one line of a line-based protocol, without its `\n`.
    package func readLine() async throws -> String {
        while true {
            let line = buffer.withLock { buffer -> String? in
                guard let newline = buffer.firstIndex(of: 0x0A) else { return nil }
                defer { buffer.removeFirst(newline + 1) }
                return String(decoding: buffer[..<newline], as: UTF8.self)
            }
            if let line { return line }
            guard let chunk = try await receive() else { throw ClientError.closed }
            buffer.withLock { $0 += chunk }
        }
    }

    /// Reads until the server closes the connection; returns what arrived.
    package func readToEnd() async throws -> [UInt8] {
        var result = buffer.withLock { buffer in defer { buffer.removeAll() }; return buffer }
        while let chunk = try await receive() { result += chunk }
        return result
    }

    /// Whether the server has closed the connection (reads to end, discarding data).
    package func isClosedByServer() async -> Bool {
        do {
            _ = try await readToEnd()
            return true
        } catch {
            return error as? ClientError == .io("recv: \(ECONNRESET)")
        }
    }

    /// Sends end-of-stream (half-close); reading stays possible.
    package func shutdownWrite() {
        _ = cs_shutdown_write(descriptor)
    }

    /// Closes the socket; with `abort`, the server sees a reset instead of a FIN.
    package func close(abort: Bool = false) {
        _ = abort ? cs_abort_close(descriptor) : cs_close(descriptor)
    }

    private func readUntilHeadEnd() async throws -> [UInt8] {
        let terminator = Array("\r\n\r\n".utf8)
        while true {
            let found = buffer.withLock { buffer -> [UInt8]? in
                guard buffer.count >= 4 else { return nil }
                for index in 0...(buffer.count - 4) where Array(buffer[index..<index + 4]) == terminator {
                    let head = Array(buffer[..<index])
                    buffer.removeFirst(index + 4)
                    return head
                }
                return nil
            }
            if let found { return found }
            guard let chunk = try await receive() else { throw ClientError.closed }
            buffer.withLock { $0 += chunk }
        }
    }

    private func readExactly(_ count: Int) async throws -> [UInt8] {
        while buffer.withLock({ $0.count }) < count {
            guard let chunk = try await receive() else { throw ClientError.closed }
            buffer.withLock { $0 += chunk }
        }
        return buffer.withLock { buffer in
            defer { buffer.removeFirst(count) }
            return Array(buffer[..<count])
        }
    }

    /// One recv; `nil` at end of stream.
    private func receive() async throws -> [UInt8]? {
        let descriptor = self.descriptor
        return try await Self.offload {
            var chunk = [UInt8](repeating: 0, count: 256 * 1024)
            let count = chunk.withUnsafeMutableBytes { cs_recv(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { throw ClientError.io("recv: \(-count)") }
            if count == 0 { return nil }
            return Array(chunk[..<count])
        }
    }

    /// Runs blocking work on its own thread.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
