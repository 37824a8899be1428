import Foundation
import Synchronization
import Testing
import WPTestThreads
import WPCollector
import WPConfig
import WPLogging
import WPServer
import WPSimulator
import WPRuntime
import WPTestSupport
@testable import WPExporter
import WPWallClock

/// The exporter with `nut.listen`: the NUT server answers from the same readings as `/metrics`.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct NUTServerTests {
    @Test func upsReadingsOverTheNUTPortEqualMetrics() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-nut-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let users = directory + "/nut-users.yml"
        try "users:\n  monuser:\n    password: secret\n    upsmon: primary\n".write(toFile: users, atomically: true, encoding: .utf8)
        let harness = try await ExporterHarness(devices: 3, configureExporter: { configuration in
            configuration.nut.listen = "127.0.0.1:0"
            configuration.nut.usersFile = users
        })
        defer { Task { await harness.shutdown() } }
        let nut = try #require(harness.exporter.nutServer)
        let running = Task { try await nut.run() }
        defer { running.cancel() }
        let port = try await nut.waitUntilListening().port
        await harness.exporter.collector.collect()
        let samples = try await harness.scrape()

        let client = try await TestHTTPClient.connect(port: port)
        defer { client.close() }
        try await client.send("LIST UPS\n")
        #expect(try await client.readLine() == "BEGIN LIST UPS")
        var names: [String] = []
        while true {
            let line = try await client.readLine()
            if line == "END LIST UPS" { break }
            names.append(String(line.split(separator: " ")[1]))
        }
        #expect(names.count == 3)
        var stale: [String] = []
        for name in names {
            try await client.send("GET VAR \(name) ups.id\n")
            let idLine = try await client.readLine()
            if idLine == "ERR DATA-STALE" {
                stale.append(name)
                continue
            }
            let id = try #require(idLine.split(separator: "\"").dropFirst().first.map(String.init), "\(idLine)")
            try await client.send("GET VAR \(name) battery.charge\n")
            let charge = try await client.readLine()
            if let value = Exposition.value(samples, "winpower_device_battery_capacity", device: id) {
                #expect(charge == "VAR \(name) battery.charge \"\(Int(value))\"")
            } else {
                #expect(charge == "ERR VAR-NOT-SUPPORTED")
            }
        }
        let disconnected = samples.filter { $0.key.hasPrefix("winpower_device_connected{") && $0.value == 0 }.count
        #expect(stale.count == disconnected, "a disconnected device is stale over NUT")
        let active = try #require(names.first { !stale.contains($0) })
        try await client.send("USERNAME monuser\nPASSWORD secret\nLOGIN \(active)\nPRIMARY \(active)\n")
        for expected in ["OK", "OK", "OK", "OK PRIMARY-GRANTED"] { #expect(try await client.readLine() == expected) }
        #expect(!harness.logs.allText.contains("secret"), "no NUT password in the log")

        // /health names the listener; /metrics counts connections, logins and commands.
        let health = try await harness.get("/health").text
        #expect(health.contains("\"nut\":{\"accepted\":1,\"connections\":1,\"listen\":\"127.0.0.1:\(port)\"}"))
        let after = try await harness.scrape()
        #expect(after["winpower_exporter_nut_connections_open"] == 1)
        #expect(after["winpower_exporter_nut_logins"] == 1)
        #expect(after["winpower_exporter_nut_connections_total{outcome=\"accepted\"}"] == 1)
        #expect(after["winpower_exporter_nut_commands_total{command=\"LIST\",result=\"OK\"}"] == 1)
        #expect(after["winpower_exporter_nut_commands_total{command=\"PRIMARY\",result=\"OK\"}"] == 1)
    }

    /// A NUT port already taken stops the start with an error naming `nut.listen`, not one
    /// that reads like the HTTP port's: from `run`, and from `runCollection` (an embedder
    /// serving the router itself) alike, instead of a silent return. Either way the data
    /// directory is released on the way out: another exporter can take it.
    @Test(arguments: [false, true]) func aTakenNUTPortIsNamedAsNutListen(collectionOnly: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-nut-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withTestServer(HandlerFunction { _ in .text("taken\n") }) { taken in
            var configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:9", username: "admin",
                                                              password: "pw", dataDirectory: directory)
            configuration.nut.listen = "127.0.0.1:\(taken)"
            let exporter = try Exporter(configuration: configuration, client: ClientStub([.success(.make())]),
                                        clock: ManualClock(), wallClock: .system, logger: .disabled)
            do {
                if collectionOnly {
                    try await exporter.runCollection(until: {})
                } else {
                    try await exporter.run(onListening: { _ in }, until: {})
                }
                Issue.record("the exporter started on a taken NUT port")
            } catch {
                let text = "\(error)"
                #expect(text.hasPrefix("nut.listen: cannot listen on 127.0.0.1:\(taken): "), "\(text)")
                #expect(error is ExporterError)
            }
            let next = try Exporter(configuration: configuration, client: ClientStub([.success(.make())]),
                                    clock: ManualClock(), wallClock: .system, logger: .disabled)
            await next.close()
        }
    }

    /// A taken `server.port` is named as `nut.listen` is: an ``ExporterError`` whose text starts
    /// with the key, the server's own error inside it; the data directory is released.
    @Test func aTakenHTTPPortIsNamedAsServerPort() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-http-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let taken = try ReservedPort(mode: .refusing)
        defer { taken.close() }
        var configuration = ExporterHarness.configuration(baseURL: "http://127.0.0.1:9", username: "admin",
                                                          password: "pw", dataDirectory: directory)
        configuration.server.host = "127.0.0.1"
        configuration.server.port = taken.port
        let exporter = try Exporter(configuration: configuration, client: ClientStub([.success(.make())]),
                                    clock: ManualClock(), wallClock: .system, logger: .disabled)
        do {
            try await exporter.run(onListening: { _ in }, until: {})
            Issue.record("the exporter started on a taken HTTP port")
        } catch let error as ExporterError {
            #expect("\(error)".hasPrefix("server.port: cannot listen on 127.0.0.1:\(taken.port): "), "\(error)")
            guard case .http(.bind) = error else {
                Issue.record("not the server's bind error: \(error)")
                return
            }
        }
        let next = try Exporter(configuration: configuration, client: ClientStub([.success(.make())]),
                                clock: ManualClock(), wallClock: .system, logger: .disabled)
        await next.close()
    }

    /// `nut.ups`: a device gets its configured name and its own thresholds (exported as
    /// variables); the others keep derived names and the defaults.
    @Test func perUPSNamesAndThresholds() async throws {
        let first = SimulatedDevice(index: 0).id
        let harness = try await ExporterHarness(devices: 2, configureExporter: { configuration in
            configuration.nut.listen = "127.0.0.1:0"
            configuration.nut.ups = [first: .init(name: "Rack-A1", batteryChargeLow: 35, batteryRuntimeLow: .seconds(600))]
        })
        defer { Task { await harness.shutdown() } }
        let nut = try #require(harness.exporter.nutServer)
        let running = Task { try await nut.run() }
        defer { running.cancel() }
        let port = try await nut.waitUntilListening().port
        await harness.exporter.collector.collect()
        let client = try await TestHTTPClient.connect(port: port)
        defer { client.close() }
        try await client.send("GET VAR rack-a1 ups.id\nGET VAR Rack-A1 battery.charge.low\nGET VAR RACK-A1 battery.runtime.low\n")
        #expect(try await client.readLine() == "VAR rack-a1 ups.id \"\(first)\"", "names compare in any case")
        #expect(try await client.readLine() == "VAR Rack-A1 battery.charge.low \"35\"")
        #expect(try await client.readLine() == "VAR RACK-A1 battery.runtime.low \"600\"")
        try await client.send("LIST UPS\n")
        #expect(try await client.readLine() == "BEGIN LIST UPS")
        let listed = try await client.readLine()
        #expect(listed.hasPrefix("UPS Rack-A1 "), "the configured spelling is the name")
        let other = String(try await client.readLine().split(separator: " ")[1])
        try await client.send("GET VAR \(other) battery.charge.low\n")
        _ = try await client.readLine()   // END LIST UPS
        #expect(try await client.readLine() == "VAR \(other) battery.charge.low \"10\"", "the default")
    }
}
