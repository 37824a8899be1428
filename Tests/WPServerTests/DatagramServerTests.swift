import Dispatch
import Glibc
import Synchronization
import Testing
import WPTestThreads
import WPLogging
import WPRuntime
import WPServer

/// Upper-cases each datagram; `drop` gets no answer; `hold` answers only once released.
private struct Upper: DatagramProtocol {
    let gate = OpenOnceGate()

    func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]? {
        let text = String(decoding: datagram, as: UTF8.self)
        switch text {
        case "drop": return nil
        case "hold":
            await gate.wait()
            return Array("HELD".utf8)
        default: return Array(text.uppercased().utf8)
        }
    }
}

/// Answers on the server's loop: upper-cases each datagram; `hold` blocks the loop until the
/// test releases it (so what is sent meanwhile waits in the socket, read as one batch).
private struct InlineUpper: DatagramProtocol {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]? { nil }

    var answersInline: Bool { true }

    func answerInline(_ datagram: [UInt8], from peer: String) -> [UInt8]? {
        let text = String(decoding: datagram, as: UTF8.self)
        if text == "hold" {
            entered.signal()
            release.wait()
            return Array("HELD".utf8)
        }
        return Array(text.uppercased().utf8)
    }
}

/// A UDP client socket bound to `source` on loopback; receives on threads of its own.
private final class UDPClient: Sendable {
    private let descriptor: Int32

    init(source: String = "127.0.0.1") throws {
        descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServerError.system(operation: "socket", reason: "\(errno)") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw ServerError.system(operation: "bind", reason: "\(errno)") }
    }

    func send(_ text: String, to port: Int) {
        send(Array(text.utf8), to: port)
    }

    func send(_ bytes: [UInt8], to port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, 0, target, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    /// The next datagram, or `nil` after 30 s.
    func receive() async throws -> String? {
        let descriptor = self.descriptor
        return try await NamedThread.run(name: "test-udp") { () -> String? in
            var buffer = [UInt8](repeating: 0, count: 2048)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count < 0 ? nil : String(decoding: buffer.prefix(count), as: UTF8.self)
        }
    }

    deinit { close(descriptor) }
}

@Suite(.ownThreads, .timeLimit(.minutes(4))) struct DatagramServerTests {
    private static func serving(_ configuration: DatagramServer<Upper>.Configuration = .init(host: "127.0.0.1", port: 0),
                                _ datagramProtocol: Upper = Upper(),
                                _ body: (Int, DatagramServer<Upper>) async throws -> Void) async throws {
        let server = DatagramServer(configuration: configuration, protocol: datagramProtocol, logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        try await body(try await server.waitUntilListening().port, server)
    }

    @Test func eachDatagramGetsItsAnswerAndNilSendsNothing() async throws {
        try await Self.serving { port, server in
            let client = try UDPClient()
            client.send("drop", to: port)
            client.send("hello", to: port)
            #expect(try await client.receive() == "HELLO")
            #expect(server.statistics.received == 2)
            #expect(server.statistics.answered == 1)
        }
    }

    /// A sender with its limit of datagrams in flight gets the next one dropped; another
    /// address is served meanwhile.
    @Test func aFloodFromOneAddressIsDroppedWhileOthersAreServed() async throws {
        let upper = Upper()
        try await Self.serving(.init(host: "127.0.0.1", port: 0, maxInFlightPerAddress: 2), upper) { port, server in
            let flooder = try UDPClient(source: "127.0.0.1")
            let other = try UDPClient(source: "127.0.0.2")
            for _ in 0..<3 { flooder.send("hold", to: port) }
            other.send("ping", to: port)
            // Loopback delivers in the order sent: the three holds were read before the ping.
            #expect(try await other.receive() == "PING")
            #expect(server.statistics.droppedBusy == 1)
            upper.gate.open()
            #expect(try await flooder.receive() == "HELD")
            #expect(try await flooder.receive() == "HELD")
        }
    }

    /// Answered on the loop, a client that waits for each answer is never dropped, however
    /// fast it asks: the per-address limit counts what waits in the socket at once.
    @Test func anInlineProtocolAnswersAClientThatWaitsForEachAnswerEveryTime() async throws {
        let server = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0, maxInFlightPerAddress: 2),
                                    protocol: InlineUpper(), logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening().port
        let client = try UDPClient()
        for index in 0..<200 {
            client.send("ping \(index)", to: port)
            #expect(try await client.receive() == "PING \(index)")
        }
        #expect(server.statistics.answered == 200 && server.statistics.droppedBusy == 0)
    }

    /// Answered on the loop, a batch of datagrams that waited in the socket gets at most the
    /// per-address limit answered for one address; another address in the batch is served.
    @Test func anInlineProtocolDropsAFloodBeyondTheLimitWhileOthersAreServed() async throws {
        let inline = InlineUpper()
        let server = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0, maxInFlightPerAddress: 2),
                                    protocol: inline, logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening().port
        let holder = try UDPClient(source: "127.0.0.3")
        holder.send("hold", to: port)
        let entered = try await NamedThread.run(name: "test-udp") { inline.entered.wait(timeout: .now() + 30) == .success }
        #expect(entered)
        let flooder = try UDPClient(source: "127.0.0.1")
        let other = try UDPClient(source: "127.0.0.2")
        for index in 0..<5 { flooder.send("flood \(index)", to: port) }
        other.send("ping", to: port)
        inline.release.signal()
        #expect(try await holder.receive() == "HELD")
        #expect(try await other.receive() == "PING")
        #expect(try await flooder.receive() == "FLOOD 0")
        #expect(try await flooder.receive() == "FLOOD 1")
        #expect(server.statistics.droppedBusy == 3)
        #expect(server.statistics.answered == 4)
    }

    /// A flood larger than the socket's receive buffer while the loop is busy: the kernel drops
    /// the excess, and the count it reports with the next datagram read is the statistic.
    @Test func whatTheKernelDropsForAFullReceiveBufferIsCounted() async throws {
        let inline = InlineUpper()
        let server = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0), protocol: inline, logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening().port
        let buffer = server.statistics.receiveBufferBytes
        #expect(buffer > 0)
        let holder = try UDPClient(source: "127.0.0.3")
        holder.send("hold", to: port)
        let entered = try await NamedThread.run(name: "test-udp") { inline.entered.wait(timeout: .now() + 30) == .success }
        #expect(entered)
        // Twice the buffer in 1,400-byte datagrams (each costs the buffer more than its size):
        // the loop reads nothing meanwhile, so the kernel must drop some.
        let flooder = try UDPClient(source: "127.0.0.1")
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 1_400)
        for _ in 0..<(2 * buffer / payload.count + 1) { flooder.send(payload, to: port) }
        #expect(server.statistics.droppedByKernel == 0, "told only with a datagram read")
        inline.release.signal()
        #expect(try await holder.receive() == "HELD")
        let other = try UDPClient(source: "127.0.0.2")
        other.send("ping", to: port)
        #expect(try await other.receive() == "PING")
        #expect(server.statistics.droppedByKernel > 0)
        #expect(server.statistics.droppedByKernel + server.statistics.received + server.statistics.droppedBusy
                >= 2 * buffer / payload.count + 2)
    }

    @Test func aDatagramOverTheLimitIsDroppedUnread() async throws {
        try await Self.serving(.init(host: "127.0.0.1", port: 0, maxDatagramBytes: 16)) { port, server in
            let client = try UDPClient()
            client.send([UInt8](repeating: 0x61, count: 100), to: port)
            client.send("ping", to: port)
            #expect(try await client.receive() == "PING")
            #expect(server.statistics.droppedTooLarge == 1)
            #expect(server.statistics.received == 1)
        }
    }

    @Test func aTakenPortIsABindErrorNamingTheAddress() async throws {
        try await Self.serving { port, _ in
            let second = DatagramServer(configuration: .init(host: "127.0.0.1", port: port), protocol: Upper(),
                                        logger: .disabled)
            await #expect {
                try await second.run()
            } throws: { error in
                guard case ServerError.bind(let address, _) = error else { return false }
                return address == "127.0.0.1:\(port)"
            }
        }
    }
}
