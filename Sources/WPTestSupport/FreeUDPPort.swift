import WPLogging
import WPServer

/// A UDP port on 127.0.0.1 that was free a moment ago: for a child process that cannot be
/// told to take port 0 (snmptrapd). Bound through WPServer's `DatagramServer` on port 0,
/// then released.
package func freeUDPPort() async throws -> Int {
    struct Silent: DatagramProtocol {
        func handle(_ datagram: [UInt8], from peer: String) async -> [UInt8]? { nil }
    }
    let probe = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0), protocol: Silent(), logger: .disabled)
    let task = Task { try await probe.run() }
    let port = try await probe.waitUntilListening().port
    task.cancel()
    _ = try? await task.value
    return port
}
