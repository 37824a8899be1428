import Foundation
import Glibc
import WPRuntime

/// A blocking keep-alive HTTP client on its own thread, for the loopback benchmark.
enum LoopbackClient {
    /// Sends GET / repeatedly for `duration`; returns each request's latency in seconds.
    static func run(port: Int, duration: Duration) async throws -> [Double] {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try loop(port: port, duration: duration) }) }.start()
        }
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A blocking TCP socket connected to 127.0.0.1:`port`; the caller closes it.
    static func connectLoopback(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "cannot connect to port \(port)")
        }
        return descriptor
    }

    private static func loop(port: Int, duration: Duration) throws -> [Double] {
        let descriptor = try connectLoopback(port: port)
        defer { close(descriptor) }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let request = Array("GET / HTTP/1.1\r\nHost: bench\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var latencies: [Double] = []
        let clock = ContinuousClock()
        let end = clock.now + duration
        while clock.now < end {
            let start = clock.now
            guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                throw Failure(description: "send failed")
            }
            // Read the head, find Content-Length, then read the rest of the body.
            var received = 0
            var expected = -1
            while expected < 0 || received < expected {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + received, $0.count - received, 0) }
                guard count > 0 else { throw Failure(description: "connection closed (\(count), errno \(errno), after \(latencies.count) requests, \(received) bytes)") }
                received += count
                if expected < 0, let total = totalLength(buffer, received) { expected = total }
            }
            let elapsed = start.duration(to: clock.now)
            latencies.append(elapsed.inSeconds)
        }
        return latencies
    }

    /// Head length plus Content-Length once the head has arrived.
    private static func totalLength(_ buffer: [UInt8], _ count: Int) -> Int? {
        guard count >= 4 else { return nil }
        for index in 0...(count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            let head = String(decoding: buffer[..<index], as: UTF8.self).lowercased()
            guard let range = head.range(of: "content-length: ") else { return nil }
            let digits = head[range.upperBound...].prefix { $0.isNumber }
            return Int(digits).map { index + 4 + $0 }
        }
        return nil
    }
}
