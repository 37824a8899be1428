import Foundation
import WPLogging
import Testing
import WPTestThreads
import WPClient
import WPServer
import WPSimulator
import WPTestSupport

/// N independent simulated servers with per-server faults, over real loopback sockets.
@Suite(.ownThreads, .timeLimit(.minutes(1))) struct SimulatorFleetTests {
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

    @Test func stoppingReleasesEveryPort() async throws {
        let (fleet, urls) = try await Self.start(servers: 3, devices: 1, faults: [0: .down, 1: .hang])
        let ports = urls.compactMap { URL(string: $0)?.port }
        // The fleet's own sockets that /proc shows (listeners; a bound refusing port shows none).
        let fleetSockets = Set(ports.flatMap { Self.sockets(on: $0).filter { $0.state == "0A" }.map(\.inode) })
        await fleet.stop()
        await fleet.stop()
        for port in ports {
            do {
                let reserved = try ReservedPort(port: port, mode: .refusing)
                reserved.close()
            } catch {
                // Tests run in parallel: once released, the port may be taken by another test's
                // listener or connection. That is a socket the fleet never had; the fleet's own
                // listener still open, or its bound port (which /proc does not list), is a leak.
                let now = Self.sockets(on: port)
                #expect(!now.isEmpty && now.allSatisfy { !fleetSockets.contains($0.inode) },
                        "port \(port) still held by the fleet: \(error); sockets on it: \(now)")
            }
        }
    }

    /// The TCP sockets of this machine with `port` as their local port (`/proc/net/tcp` and
    /// `tcp6`): their inode and state (`0A` is a listener).
    static func sockets(on port: Int) -> [(inode: Substring, state: Substring)] {
        var found: [(inode: Substring, state: Substring)] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, let colon = fields[1].lastIndex(of: ":"),
                      Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port else { continue }
                found.append((inode: fields[9], state: fields[3]))
            }
        }
        return found
    }
}
