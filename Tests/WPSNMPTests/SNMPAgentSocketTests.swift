import Glibc
import Testing
import WPTestThreads
import WPLogging
import WPRuntime
import WPServer
@testable import WPSNMP

/// A UDP socket on loopback that sends requests and receives answers on threads of its own.
private final class SNMPClient: Sendable {
    private let descriptor: Int32

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServerError.system(operation: "socket", reason: "\(errno)") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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
    func receive() async throws -> [UInt8]? {
        let descriptor = self.descriptor
        return try await NamedThread.run(name: "test-snmp") { () -> [UInt8]? in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count < 0 ? nil : Array(buffer.prefix(count))
        }
    }

    deinit { close(descriptor) }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SNMPAgentSocketTests {
    /// A real `DatagramServer<SNMPAgent>` on 127.0.0.1 port 0: a dropped wrong community, then a
    /// GetBulk walk of the whole view over the socket.
    @Test func datagramServerServesTheAgent() async throws {
        let view = fullView()
        let snmp = SNMPAgent(configuration: .init(communities: ["public"])) { view }
        let server = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0), protocol: snmp, logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilListening().port
        let client = try SNMPClient()
        client.send(request(BERTag.getRequest, ["1.3.6.1.2.1.1.1.0"], community: "wrong"), to: port)
        var walked: [VarBind] = []
        var cursor: OID = "1.3.6.1"
        walk: while true {
            client.send(request(BERTag.getBulkRequest, [cursor], field2: 20), to: port)
            // Loopback delivers in order: the wrong community's request was handled (dropped) first.
            let reply = try SNMPMessage(decoding: try #require(try await client.receive()))
            #expect(reply.pdu.type == BERTag.response && reply.pdu.requestID == 4711)
            for binding in reply.pdu.varBinds {
                if binding.value == .endOfMibView { break walk }
                walked.append(binding)
                cursor = binding.oid
            }
        }
        #expect(walked == view.instances)
        #expect(snmp.statistics.badCommunities == 1)
        #expect(server.statistics.received == snmp.statistics.received)
    }
}
