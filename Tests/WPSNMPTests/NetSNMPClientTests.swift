import Testing
import WPTestThreads
import WPLogging
import WPServer
import WPTestSupport
@testable import WPSNMP

/// net-snmp's command-line tools against a real `DatagramServer<SNMPAgent>` on 127.0.0.1 port
/// 0. Skipped when the tools are not installed (Debian: `apt-get install snmp`).
@Suite(.ownThreads, .timeLimit(.minutes(3)),
       .enabled(if: ["snmpget", "snmpwalk", "snmpbulkwalk", "snmpset"].allSatisfy { ChildProcess.executable(named: $0) != nil },
                "net-snmp's snmpget, snmpwalk, snmpbulkwalk and snmpset are not installed: skipped"))
struct NetSNMPClientTests {
    /// Runs net-snmp `tool` with `arguments` (numeric OIDs, no MIB files) against the agent.
    /// `trailing` follows the agent's address (OIDs, and a Set's type and value).
    private static func run(_ tool: String, _ arguments: [String], port: Int, _ trailing: String...) async throws
        -> (status: Int32, output: String, error: String) {
        let path = try #require(ChildProcess.executable(named: tool))
        let child = try ChildProcess(path, ["-m", "", "-On", "-t", "5", "-r", "1"] + arguments + ["127.0.0.1:\(port)"] + trailing)
        let status = await child.exitStatus(limit: .seconds(60))
        return (status, child.standardOutput, child.standardError)
    }

    private static func serving(_ body: (Int, MIBTable) async throws -> Void) async throws {
        let view = fullView()
        let agent = SNMPAgent(configuration: .init(communities: ["public"])) { view }
        let server = DatagramServer(configuration: .init(host: "127.0.0.1", port: 0), protocol: agent, logger: .disabled)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        try await body(try await server.waitUntilListening().port, view)
    }

    /// The numeric OIDs of net-snmp's `-On` output lines (`.1.3.6… = TYPE: value`), without
    /// the line a v2c walk prints for the final `endOfMibView`.
    static func oids(_ output: String) -> [OID] {
        output.split(separator: "\n").filter { !$0.contains("No more variables left in this MIB View") }.compactMap { line in
            line.split(separator: " ", maxSplits: 1).first.flatMap { OID(parsing: String($0)) }
        }
    }

    @Test func walksReadEveryInstanceInOrder() async throws {
        try await Self.serving { port, view in
            for (tool, version) in [("snmpwalk", "1"), ("snmpwalk", "2c"), ("snmpbulkwalk", "2c")] {
                let (status, output, error) = try await Self.run(tool, ["-v", version, "-c", "public"], port: port, "1.3.6.1")
                #expect(status == 0, "\(tool) -v\(version): \(error)")
                #expect(Self.oids(output) == view.instances.map(\.oid), "\(tool) -v\(version)")
            }
            let bulk = try await Self.run("snmpbulkwalk", ["-v", "2c", "-c", "public", "-Cr64"], port: port, "1.3.6.1.2.1.33")
            #expect(bulk.status == 0 && Self.oids(bulk.output) == view.instances.map(\.oid).filter { $0.isPrefixed(by: "1.3.6.1.2.1.33") })
        }
    }

    @Test func getReadsValuesAndSetIsRefused() async throws {
        try await Self.serving { port, _ in
            let get = try await Self.run("snmpget", ["-v", "2c", "-c", "public"], port: port, "1.3.6.1.2.1.1.1.0", "1.3.6.1.2.1.33.1.6.2.1.2.1")
            #expect(get.status == 0, "\(get.error)")
            #expect(get.output.contains(".1.3.6.1.2.1.1.1.0 = STRING: \"wpexporter UPS agent\""), "\(get.output)")
            #expect(get.output.contains(".1.3.6.1.2.1.33.1.6.2.1.2.1 = OID: .1.3.6.1.2.1.33.1.6.3.2"), "\(get.output)")
            let v2 = try await Self.run("snmpset", ["-v", "2c", "-c", "public"], port: port, "1.3.6.1.2.1.1.5.0", "s", "new")
            #expect(v2.status != 0 && v2.error.contains("noAccess"), "\(v2.error)")
            let v1 = try await Self.run("snmpset", ["-v", "1", "-c", "public"], port: port, "1.3.6.1.2.1.1.5.0", "s", "new")
            #expect(v1.status != 0 && v1.error.contains("noSuchName"), "\(v1.error)")
            let wrong = try await Self.run("snmpget", ["-v", "2c", "-c", "private", "-t", "1", "-r", "0"], port: port, "1.3.6.1.2.1.1.1.0")
            #expect(wrong.status != 0 && wrong.error.contains("Timeout"), "\(wrong.error)")
        }
    }
}
