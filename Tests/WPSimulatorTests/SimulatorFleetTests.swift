import Foundation
import WPLogging
import Testing
import WPTestThreads
import WPClient
import WPServer
import WPSimulator
import WPTestSupport

/// N independent simulated servers with per-server faults, over real loopback sockets.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct SimulatorFleetTests {
    static func client(_ baseURL: String, password: String = "admin",
                       apiTimeout: Duration = .seconds(10)) throws -> WinPowerHTTPClient {
        var configuration = WinPowerHTTPClient.Configuration(baseURL: try #require(URL(string: baseURL)),
                                                             username: "admin", password: password)
        configuration.apiTimeout = apiTimeout
        configuration.timeout = max(apiTimeout, configuration.apiTimeout)
        return WinPowerHTTPClient(configuration: configuration, logger: .disabled)
    }

    /// A started fleet of `servers` with `faults`, and its base URLs.
    static func start(servers: Int, devices: Int = 3, faults: [Int: SimulatorFleet.Fault] = [:]) async throws
        -> (SimulatorFleet, [String]) {
        var configuration = SimulatorFleet.Configuration(servers: servers, devicesPerServer: devices)
        configuration.faults = faults
        let fleet = SimulatorFleet(configuration: configuration)
        return (fleet, try await fleet.start())
    }

    @Test func serversAreIndependentWithTheirOwnPortsDevicesAndTokens() async throws {
        let fleet = SimulatorFleet(configuration: .init(servers: 3, devicesPerServer: 4))
        let urls = try await fleet.start()
        #expect(urls.count == 3 && Set(urls).count == 3)
        #expect(urls.allSatisfy { $0.hasPrefix("http://127.0.0.1:") })
        var ids: [[String]] = []
        for url in urls {
            let readout = try await Self.client(url).fetchDevices()
            ids.append(readout.devices.map(\.id))
        }
        #expect(ids.allSatisfy { $0.count == 4 })
        #expect(Set(ids.flatMap { $0 }).count == 12, "no device id is shared between servers")
        let tokens = fleet.members.compactMap(\.simulator).flatMap(\.issuedTokens)
        #expect(tokens.count == 3 && Set(tokens).count == 3, "every server issues its own token")
        await fleet.stop()
    }

    @Test func aDownServerRefusesConnectionsAndKeepsItsPort() async throws {
        let (fleet, urls) = try await Self.start(servers: 2, devices: 1, faults: [0: .down])
        let port = try #require(URL(string: urls[0])?.port)
        await #expect(throws: TestHTTPClient.ClientError.self) { _ = try await TestHTTPClient.connect(port: port) }
        let error = await #expect(throws: ClientError.self) { _ = try await Self.client(urls[0]).fetchDevices() }
        #expect(error?.kind == .network)
        // The port stays bound: nothing else can listen on it while the fleet runs.
        #expect(throws: SimulatorFleetError.self) { _ = try ReservedPort(port: port, mode: .silent) }
        // Not even a listener setting SO_REUSEADDR, as the servers' listeners do.
        let listener = #expect(throws: ServerError.self) { _ = try ListeningSocket.open(host: "127.0.0.1", port: port, backlog: 1) }
        #expect(listener?.description.contains("127.0.0.1:\(port)") == true, "\(String(describing: listener))")
        #expect(try await Self.client(urls[1]).fetchDevices().devices.count == 1, "the other server is unaffected")
        #expect(fleet.members[0].simulator == nil && fleet.members[0].fault == .down)
        await fleet.stop()
    }

    @Test func aHangingServerAcceptsAndNeverAnswers() async throws {
        let (fleet, urls) = try await Self.start(servers: 1, faults: [0: .hang])
        let port = try #require(URL(string: urls[0])?.port)
        let connection = try await TestHTTPClient.connect(port: port)
        connection.close()
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.client(urls[0], apiTimeout: .milliseconds(200)).fetchDevices()
        }
        #expect(error?.kind == .timeout)
        await fleet.stop()
    }

    @Test func aServerRejectingThePasswordAnswersTheReal401() async throws {
        let (fleet, urls) = try await Self.start(servers: 2, faults: [1: .rejectsPassword])
        let port = try #require(URL(string: urls[1])?.port)
        let response = try await SimulatorServerTests.login(port: port)
        #expect(response.status == 401)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"100401","message":"Authentication failed""#))
        let error = await #expect(throws: ClientError.self) { _ = try await Self.client(urls[1]).fetchDevices() }
        #expect(error?.kind == .auth)
        #expect(try await Self.client(urls[0]).fetchDevices().devices.count == 3)
        await fleet.stop()
    }

    @Test func serverFaultsParseAndBadEntriesAreNamed() throws {
        #expect(try SimulatorFleet.parseFaults("1=down, 3=hang,0=rejects-password") == [1: .down, 3: .hang, 0: .rejectsPassword])
        #expect(throws: SimulatorFleetError.unknownFault("2=slow")) { try SimulatorFleet.parseFaults("2=slow") }
        #expect(throws: SimulatorFleetError.unknownFault("down")) { try SimulatorFleet.parseFaults("down") }
        #expect(SimulatorFleetError.unknownFault("x").description.contains("down, hang, rejects-password"))
    }

    /// Every socket the fleet held on its ports is closed by `stop()` (twice is fine). Checked on
    /// this process's own descriptors, not by binding the ports again: tests run in parallel,
    /// and a port released here may at once be another test's.
    @Test func stoppingReleasesEveryPort() async throws {
        let (fleet, urls) = try await Self.start(servers: 3, devices: 1, faults: [0: .down, 1: .hang])
        let ports = Set(urls.compactMap { URL(string: $0)?.port })
        #expect(ports.count == 3)
        let held = Self.openSockets(on: ports)
        #expect(Set(held.values).count == 3, "the refusing port, the silent listener and the simulator's: \(held)")
        await fleet.stop()
        await fleet.stop()
        let left = Self.openSockets(on: ports)
        #expect(Set(left.keys).isDisjoint(with: held.keys), "still open: \(left.filter { held[$0.key] != nil })")
    }

    /// This process's sockets whose local port is one of `ports`: port by socket inode
    /// (`socket:[N]`, from /proc/self/fd).
    static func openSockets(on ports: Set<Int>) -> [String: Int] {
        var found: [String: Int] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard let fd = Int32(entry),
                  let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                  link.hasPrefix("socket:[") else { continue }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0, address.ss_family == sa_family_t(AF_INET) || address.ss_family == sa_family_t(AF_INET6) else { continue }
            // TCP only: a UDP socket of another test (an SNMP agent on port 0) may get the same number.
            var type: Int32 = 0
            var typeLength = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &typeLength) == 0, type == Int32(SOCK_STREAM.rawValue) else { continue }
            // sin_port and sin6_port both sit right after the 2-byte family.
            let port = Int(UInt16(bigEndian: withUnsafeBytes(of: address) { $0.load(fromByteOffset: 2, as: UInt16.self) }))
            if ports.contains(port) { found[link] = port }
        }
        return found
    }
}
