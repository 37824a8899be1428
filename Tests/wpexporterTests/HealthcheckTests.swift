import Foundation
import Testing
import WPTestThreads
import WPConfig
import WPHTTPClient
import WPServer
import WPSimulator
import WPTestSupport
@testable import WPExporter
@testable import wpexporter

/// An exporter's liveness endpoint and nothing else: `/-/healthy` answers 200, any other path 404.
private struct LivenessOnly: HTTPHandler {
    func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        request.path == "/-/healthy" ? .text("OK") : .text("not found", status: 404)
    }
}

/// `wpexporter healthcheck` against a running exporter, a closed port, and from the
/// configuration to the URL it asks (TLS, wildcard addresses, basic authentication).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct HealthcheckTests {
    private func tool(_ recorder: Recorder, files: [String: String] = [:]) -> CommandLineTool {
        CommandLineTool(environment: [:], files: .inMemory(files), output: recorder.output, hooks: recorder.hooks())
    }

    @Test func healthyExporterExitsZero() async throws {
        let recorder = Recorder()
        let (status, port) = try await withTestServer(LivenessOnly()) { port in
            (await tool(recorder).run(["healthcheck", "--server.host", "127.0.0.1", "--server.port", "\(port)"]), port)
        }
        #expect(status == 0, "\(recorder.err)")
        #expect(recorder.out == "healthy: http://127.0.0.1:\(port)/-/healthy\n")
        #expect(recorder.calls.isEmpty)
    }

    @Test func stoppedExporterExitsOneNamingTheURL() async throws {
        // A port bound and refusing, held for the whole test: a port released by a stopped
        // server could be taken by another test's server meanwhile and answer.
        let refusing = try ReservedPort(port: 0, mode: .refusing)
        defer { refusing.close() }
        let port = refusing.port
        let recorder = Recorder()
        let status = await tool(recorder).run(["healthcheck", "--server.port", "\(port)"])
        #expect(status == 1)
        #expect(recorder.out.isEmpty)
        #expect(recorder.err.hasPrefix("healthcheck: no answer from http://127.0.0.1:\(port)/-/healthy: "), "\(recorder.err)")
        #expect(recorder.err.filter { $0 == "\n" }.count == 1)
    }

    @Test func invalidConfigurationIsOneLineAndExitOne() async {
        let recorder = Recorder()
        let status = await tool(recorder).run(["healthcheck", "--server.port", "70000"])
        #expect(status == 1)
        #expect(recorder.err.hasPrefix("healthcheck: configuration is invalid: "), "\(recorder.err)")
        #expect(recorder.err.contains("server.port"))
        #expect(recorder.err.filter { $0 == "\n" }.count == 1)
    }

    @Test func portZeroCannotBeProbed() async {
        let recorder = Recorder()
        let status = await tool(recorder).run(["healthcheck", "--server.port", "0"])
        #expect(status == 1)
        #expect(recorder.err.contains("server.port is 0"), "\(recorder.err)")
    }

    @Test func wildcardAddressesBecomeLoopback() {
        #expect(Healthcheck.probeHost("0.0.0.0") == "127.0.0.1")
        #expect(Healthcheck.probeHost("::") == "[::1]")
        #expect(Healthcheck.probeHost("192.0.2.7") == "192.0.2.7")
        #expect(Healthcheck.probeHost("fd00::7") == "[fd00::7]")
        #expect(Healthcheck.probeHost("exporter.local") == "exporter.local")
    }

    @Test func webConfigurationChoosesSchemeAndAuthentication() throws {
        var server = ExporterConfiguration().server
        server.host = "0.0.0.0"
        server.port = 9443
        #expect(try Healthcheck.target(server: server, web: nil)
            == Healthcheck.Target(url: "http://127.0.0.1:9443/-/healthy", authenticationRequired: false))
        var web = WebConfiguration()
        web.tlsServer = WebConfiguration.TLSServer(certFile: "/c.pem", keyFile: "/k.pem")
        web.basicAuthUsers = ["prometheus": "$2y$10$hash"]
        #expect(try Healthcheck.target(server: server, web: web)
            == Healthcheck.Target(url: "https://127.0.0.1:9443/-/healthy", authenticationRequired: true))
        web.unauthenticatedPaths = ["/-/healthy"]
        #expect(try Healthcheck.target(server: server, web: web).authenticationRequired == false)
    }

    /// Any answer but 200 (here a 404) fails, naming the URL and the status.
    @Test func otherStatusFailsNamingIt() async throws {
        let client = HTTPClient(configuration: HTTPClient.Configuration(tls: .skip))
        let (missing, healthy, failure, line) = try await withTestServer(LivenessOnly()) { port in
            let missing = Healthcheck.Target(url: "http://127.0.0.1:\(port)/nonexistent", authenticationRequired: true)
            var failure: HealthcheckFailure?
            do { _ = try await Healthcheck.probe(missing, client: client) } catch { failure = error as? HealthcheckFailure }
            let healthy = Healthcheck.Target(url: "http://127.0.0.1:\(port)/-/healthy", authenticationRequired: false)
            return (missing, healthy, failure, try? await Healthcheck.probe(healthy, client: client))
        }
        #expect(failure.map { "\($0)" }?.hasPrefix("healthcheck: \(missing.url) answered 404") == true, "\(String(describing: failure))")
        if case .answered(let url, let status, _) = failure {
            #expect(url == missing.url && status == 404)
        } else {
            Issue.record("expected an answered failure, got \(String(describing: failure))")
        }
        #expect(line == "healthy: \(healthy.url)")
    }
}
