import Foundation
import Testing
import WPTestThreads
import WPClient
import WPCollector
import WPConfig
import WPServer
import WPTestSupport
@testable import WPExporter
import WPCompression

/// `/probe?target=` serves one configured server's cached readings; `/targets` lists the
/// configured servers for Prometheus' HTTP service discovery.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ProbeTargetsTests {
    static func harness(security: WebSecurity = .none) throws -> ServersHarness {
        try ServersHarness(servers: [("a", ClientStub([.success(.make(devices: [.make(id: "ups-1", watts: 100)]))])),
                                     ("b", ClientStub([.success(.make(devices: [.make(id: "ups-9", watts: 50)]))]))],
                           security: security)
    }

    @Test func probeServesOneServersReadingsWithoutServerLabels() async throws {
        let harness = try Self.harness()
        for pipeline in harness.exporter.pipelines { await pipeline.collector.collect() }
        let probe = try await harness.get("/probe?target=b")
        #expect(probe.status == 200)
        #expect(probe.text.contains("winpower_device_load_total_watts{device_id=\"ups-9\""))
        #expect(!probe.text.contains("ups-1"))
        #expect(!probe.text.contains("server="), "Prometheus adds the target's labels from /targets")
        #expect(!probe.text.contains("winpower_exporter_requests_total"), "per-process metrics stay on /metrics")
        let openMetrics = try await harness.get("/probe?target=a", headers: ["Accept": "application/openmetrics-text;version=1.0.0"])
        #expect(openMetrics.text.hasSuffix("# EOF\n"))
        #expect(openMetrics.response.headers["Content-Type"]?.hasPrefix("application/openmetrics-text") == true)
        let gzip = try await harness.get("/probe?target=a", headers: ["Accept-Encoding": "gzip"])
        #expect(gzip.response.headers["Content-Encoding"] == "gzip")
        let plain = try await harness.get("/probe?target=a")
        #expect(Gzip.decompress(gzip.response.wholeBody) == Array(plain.text.utf8))
        #expect(plain.text.contains("winpower_device_load_total_watts{device_id=\"ups-1\""))
        await harness.exporter.close()
    }

    @Test(arguments: [
        ("/probe", "target=<server name> is required"),
        ("/probe?target=", "target=<server name> is required"),
        ("/probe?target=c", "unknown target \"c\"; configured servers: a, b"),
        ("/probe?target=a&target=b", "target given 2 times"),
        ("/probe?target=http%3A%2F%2F127.0.0.1%3A8081", "unknown target \"http://127.0.0.1:8081\""),
        ("/probe?target=a&password=x", "unknown parameter \"password\""),
        ("/probe?target=a&url=http://127.0.0.1", "unknown parameter \"url\""),
        ("/probe?target=a&&&", "empty query parameter"),
        ("/probe?&target=a", "empty query parameter"),
        ("/targets?x=1", "unknown parameter \"x\"; /targets takes no parameters"),
        ("/targets?&", "empty query parameter"),
    ])
    func probeAndTargetsRefuseWhatTheyDoNotTake(target: String, message: String) async throws {
        let harness = try Self.harness()
        let response = try await harness.get(target, headers: ["Host": "exporter.test:9102"])
        #expect(response.status == 400)
        #expect(response.text.contains(message), "\(response.text)")
        #expect(!response.text.contains("s3cr3t"))
        await harness.exporter.close()
    }

    @Test func targetsListEveryServerForHTTPServiceDiscovery() async throws {
        let harness = try Self.harness()
        let response = try await harness.get("/targets")
        #expect(response.status == 200)
        #expect(response.response.headers["Content-Type"] == "application/json")
        let groups = try JSONDecoder().decode([TargetGroup].self, from: Data(response.text.utf8))
        #expect(groups == [
            TargetGroup(targets: ["exporter.test:9102"],
                        labels: ["__metrics_path__": "/probe", "__param_target": "a", "server": "a", "site": "site-0"]),
            TargetGroup(targets: ["exporter.test:9102"],
                        labels: ["__metrics_path__": "/probe", "__param_target": "b", "server": "b", "site": "site-1"]),
        ])
        await harness.exporter.close()
    }

    @Test(arguments: ["", "user:pw@host:9102", "host:9102/x", "host:0", "host:99999", "host name", "[::1", "[zz]:80", "host:"])
    func targetsRefuseAHostHeaderThatIsNotHostAndPort(host: String) async throws {
        let harness = try Self.harness()
        let response = try await harness.get("/targets", headers: ["Host": host])
        #expect(response.status == 400)
        await harness.exporter.close()
    }

    @Test(arguments: ["localhost:9102", "127.0.0.1:9102", "[::1]:9102", "exporter.example", "wp_exporter.lan:80"])
    func targetsAcceptHostAndPortForms(host: String) {
        #expect(Endpoints.isValidHost(host))
    }

    @Test func basicAuthenticationGuardsProbeAndTargets() async throws {
        let hash = try #require(BCrypt.hash(password: "scrape-pw", setting: "$2b$04$abcdefghijklmnopqrstuu"))
        let security = try loadWebSecurity(path: "/web.yml", files: .inMemory(["/web.yml": "basic_auth_users:\n  prom: \(hash)\n"]))
        let harness = try Self.harness(security: security)
        #expect(try await harness.get("/probe?target=a").status == 401)
        #expect(try await harness.get("/targets").status == 401)
        let credentials = ["Authorization": "Basic " + Data("prom:scrape-pw".utf8).base64EncodedString()]
        #expect(try await harness.get("/probe?target=a", headers: credentials).status == 200)
        #expect(try await harness.get("/targets", headers: credentials).status == 200)
        await harness.exporter.close()
    }

    @Test func theLandingPageLinksEveryServersProbeAndTheTargets() async throws {
        let harness = try Self.harness()
        let page = try await harness.get("/").text
        #expect(page.contains("exporting from 2 WinPower servers: <a href=\"/probe?target=a\"><code>a</code></a> (<code>http://127.0.0.2:8081</code>)"))
        #expect(page.contains("<li><a href=\"/targets\">Targets</a>"))
        await harness.exporter.close()
    }

    @Test func aSingleServerExporterAnswersNeitherEndpoint() async throws {
        let router = try EndpointTests.endpoints().makeRouter()
        for target in ["/probe?target=a", "/targets"] {
            var request = WPHTTPRequest(method: "GET", target: target)
            request.headers.set(name: "Host", value: "exporter:9090")
            let response = try await router.handle(request)
            #expect(response.status == 404, "\(target)")
            #expect(String(decoding: response.body, as: UTF8.self) == "not found\n", "\(target)")
        }
    }
}
