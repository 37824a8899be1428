import WPText
import Foundation
import Testing
import WPTestThreads
import WPCollector
import WPFrontEnd
import WPStatusPage
@testable import WPConfig
import WPMetrics
import WPServer
import WPTestSupport
@testable import WPExporter
import WPCompression
import WPRuntime
import WPWallClock

/// The HTTP endpoints over a real socket: formats, gzip members, health and the landing page.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct EndpointTests {
    @Test func gzipBodyIsOneMemberContinuingTheSnapshotAndDecodesLikePrometheus() async throws {
        let harness = try await ExporterHarness(devices: 20)
        await harness.exporter.collector.collect()
        let plain = try await harness.get("/metrics")
        let zipped = try await harness.get("/metrics", headers: ["Accept-Encoding": "gzip"])
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(plain.header("Content-Encoding") == nil)
        let snapshot = harness.exporter.collector.snapshot
        let blocks = snapshot.textGzip.dropLast(10)   // the snapshot's member without its final block and trailer
        #expect(zipped.body.prefix(blocks.count).elementsEqual(blocks), "the pre-built blocks served as they are")
        let decoded = try #require(Gzip.decompress(zipped.body), "one gzip member, decoded whole")
        let text = String(decoding: decoded, as: UTF8.self)
        #expect(text.hasPrefix(String(decoding: snapshot.text, as: UTF8.self)))
        #expect(text.contains("winpower_exporter_build_info{"))
        #expect(text.contains("process_cpu_seconds_total"))
        // Apart from the request counted in between, the same series as the plain body.
        let counted = { (key: String) in key.hasPrefix("winpower_exporter_requests_total") }
        let sameSeries = Set(Exposition.samples(text).keys.filter { !counted($0) })
            == Set(Exposition.samples(plain.text).keys.filter { !counted($0) })
        #expect(sameSeries)
        try Self.checkWithPython(zipped.body, expected: decoded)
        await harness.shutdown()
    }

    @Test func pushBodyIsEmptyBeforeTheFirstCollectionThenWhatAPlainScrapeGets() async throws {
        let harness = try await ExporterHarness(devices: 3)
        #expect(harness.exporter.endpoints.textExposition().isEmpty, "nothing to push before a collection")
        await harness.exporter.collector.collect()
        let pushed = String(decoding: harness.exporter.endpoints.textExposition(), as: UTF8.self)
        let snapshot = harness.exporter.collector.snapshot
        #expect(pushed.hasPrefix(String(decoding: snapshot.text, as: UTF8.self)))
        #expect(pushed.contains("winpower_device_load_total_watts{"))
        #expect(pushed.contains("winpower_exporter_build_info{"))
        #expect(!pushed.contains("# EOF"), "text format, no OpenMetrics terminator")
        await harness.shutdown()
    }

    /// Python's gzip module and one zlib MAX_WBITS|16 decoder that stops after the first
    /// member (as curl 7.88's `--compressed` does) read the whole body, with nothing left
    /// over; skipped when python3 is missing.
    static func checkWithPython(_ body: [UInt8], expected: [UInt8]) throws {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: FileManager.default.isExecutableFile)
        else { return }
        let script = """
        import gzip, sys, zlib
        data = sys.stdin.buffer.read()
        a = gzip.decompress(data)
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
        out = d.decompress(data)
        assert d.eof and not d.unused_data, "more than one gzip member"
        assert a == out, "gzip and zlib disagree"
        sys.stdout.buffer.write(a)
        """
        let child = try ChildProcess(python, ["-c", script], standardInput: true)
        try child.write(body)
        child.closeInput()
        #expect(child.waitUntilDone() == 0)
        let decoded = child.standardOutputBytes
        #expect(Array(decoded) == expected)
    }

    @Test func openMetricsEndsWithOneEOFAndPlainTextHasNone() async throws {
        let harness = try await ExporterHarness(devices: 2)
        await harness.exporter.collector.collect()
        let accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
        let open = try await harness.get("/metrics", headers: ["Accept": accept])
        #expect(open.header("Content-Type") == ExpositionFormat.openMetrics.contentType)
        #expect(open.text.hasSuffix("# EOF\n"))
        #expect(open.text.components(separatedBy: "# EOF").count == 2)
        let zipped = try await harness.get("/metrics", headers: ["Accept": accept, "Accept-Encoding": "br;q=1, gzip;q=0.8"])
        let decoded = String(decoding: try #require(Gzip.decompress(zipped.body)), as: UTF8.self)
        #expect(decoded.hasSuffix("# EOF\n"))
        #expect(decoded.components(separatedBy: "# EOF").count == 2)
        let plain = try await harness.get("/metrics")
        #expect(plain.header("Content-Type") == ExpositionFormat.text.contentType)
        #expect(!plain.text.contains("# EOF"))
        await harness.shutdown()
    }

    @Test func requestsAreCountedByHandlerAndCode() async throws {
        let harness = try await ExporterHarness(devices: 1)
        _ = try await harness.get("/health")
        _ = try await harness.get("/nope")
        _ = try await harness.get("/metrics")
        harness.clock.advance(by: .seconds(1))   // past the shared body's age limit
        let samples = try await harness.scrape()
        #expect(samples["winpower_exporter_requests_total{handler=\"/health\",code=\"503\"}"] == 1)
        #expect(samples["winpower_exporter_requests_total{handler=\"unmatched\",code=\"404\"}"] == 1)
        #expect(samples["winpower_exporter_requests_total{handler=\"/metrics\",code=\"200\"}"] == 1)
        await harness.shutdown()
    }

    @Test func everyScrapeSharesTheSnapshotBytesAndRendersItsOwnPerScrapePart() async throws {
        let harness = try await ExporterHarness(devices: 2)
        await harness.exporter.collector.collect()
        let snapshot = harness.exporter.collector.snapshot
        for format in ["text/plain", "application/openmetrics-text"] {
            var request = WPHTTPRequest(method: "GET", target: "/metrics")
            request.headers.add(name: "Accept", value: format)
            let first = harness.exporter.endpoints.metrics(request)
            let second = harness.exporter.endpoints.metrics(request)
            let expected = format == "text/plain" ? snapshot.text : snapshot.openMetrics
            // The snapshot's own buffer, not a copy: a scrape allocates only its small part.
            for response in [first, second] {
                #expect(response.body.withUnsafeBufferPointer { $0.baseAddress }
                    == expected.withUnsafeBufferPointer { $0.baseAddress })
            }
            #expect(!first.bodySuffix.isEmpty && first.bodySuffix.count < 16 * 1024)
        }
        // Counted by the router, so over the socket: each scrape sees the one before it.
        let third = try await harness.get("/metrics")
        let fourth = try await harness.get("/metrics")
        #expect(third.text.contains("winpower_exporter_requests_total{handler=\"/metrics\",code=\"200\"} 1\n") == false)
        #expect(fourth.text.contains("winpower_exporter_requests_total{handler=\"/metrics\",code=\"200\"} 1\n"))
        let gzip = try await harness.get("/metrics", headers: ["Accept-Encoding": "gzip"])
        #expect(gzip.header("Content-Encoding") == "gzip")
        let blocks = snapshot.textGzip.dropLast(10)
        #expect(gzip.body.prefix(blocks.count).elementsEqual(blocks))
        var request = WPHTTPRequest(method: "GET", target: "/metrics")
        request.headers.add(name: "Accept-Encoding", value: "gzip")
        let shared = harness.exporter.endpoints.metrics(request)
        let open = snapshot.gzipBody(openMetrics: false, appending: []).body
        #expect(shared.body.withUnsafeBufferPointer { $0.baseAddress } == open.withUnsafeBufferPointer { $0.baseAddress },
                "the snapshot's compressed buffer, not a copy")
        await harness.shutdown()
    }

    @Test func healthReadyAndLandingPage() async throws {
        let harness = try await ExporterHarness(devices: 3)
        #expect(try await harness.get("/-/healthy").status == 200)
        #expect(try await harness.get("/-/ready").status == 503)
        let before = try await harness.get("/health")
        #expect(before.status == 503)
        await harness.exporter.collector.collect()
        #expect(try await harness.get("/-/ready").status == 200)
        let health = try await harness.get("/health")
        #expect(health.status == 200)
        #expect(health.header("Content-Type")?.hasPrefix("application/json") == true)
        let report = try JSONDecoder().decode(HealthReport.self, from: Data(health.body))
        #expect(report.status == "healthy")
        #expect(report.deviceCount == 3)
        #expect(report.lastCollection.success)
        #expect(report.winPower.reachable && report.winPower.authenticated)
        #expect(report.lastCollection.time != nil)
        let page = try await harness.get("/")
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains("href=\"/metrics\""))
        #expect(page.text.contains(harness.exporter.collector.configuration.target))
        for response in [health, page] { #expect(!response.text.contains("s3cr3t-Pa55")) }
        #expect(!harness.logs.allText.contains("s3cr3t-Pa55"))
        await harness.shutdown()
    }

    /// `/health` and `/-/ready` judge the last *finished* collection: one in progress changes
    /// neither, and a failure makes `/health` 503 even while older readings are still fresh.
    @Test func healthAndReadinessFollowTheLastFinishedCollection() async throws {
        let now = Date(timeIntervalSince1970: 1_760_000_000)
        let ago = { (seconds: Double) in now.addingTimeInterval(-seconds) }
        let cases: [(name: String, health: CollectorHealth, status: Int, ready: Int, success: Bool)] = [
            ("first collection running", CollectorHealth(lastAttempt: ago(1), inProgress: true), 503, 503, false),
            ("fresh success, next one running",
             CollectorHealth(lastAttempt: ago(1), lastFinished: ago(4), inProgress: true, lastSuccess: ago(4)), 200, 200, true),
            ("last one failed, older success still fresh",
             CollectorHealth(lastAttempt: ago(2), lastFinished: ago(1), lastSuccess: ago(6), lastError: "timeout: slow"),
             503, 200, false),
            ("success older than the window",
             CollectorHealth(lastAttempt: ago(20), lastFinished: ago(16), lastSuccess: ago(16)), 503, 200, true),
        ]
        for item in cases {
            let endpoints = try Self.endpoints(health: item.health, now: now)
            let response = endpoints.healthResponse()
            #expect(response.status == item.status, "\(item.name)")
            let report = try JSONDecoder().decode(HealthReport.self, from: Data(response.body))
            #expect(report.lastCollection.success == item.success, "\(item.name)")
            #expect(report.lastCollection.inProgress == item.health.inProgress, "\(item.name)")
            #expect(report.lastCollection.time == item.health.lastFinished.map(Endpoints.iso), "\(item.name): when it finished")
            let ready = try await endpoints.makeRouter().handle(WPHTTPRequest(method: "GET", target: "/-/ready"))
            #expect(ready.status == item.ready, "\(item.name)")
        }
    }

    @Test func metricsAreServedOnTheConfiguredPathOnly() async throws {
        let harness = try await ExporterHarness(devices: 2, configureExporter: { $0.server.metricsPath = "/ups/metrics" })
        await harness.exporter.collector.collect()
        let metrics = try await harness.get("/ups/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("winpower_exporter_up 1\n"))
        #expect(try await harness.get("/metrics").status == 404)
        let again = try await harness.get("/ups/metrics") // counts the requests before it
        #expect(again.text.contains("winpower_exporter_requests_total{handler=\"/ups/metrics\",code=\"200\"} 1\n"))
        #expect(try await harness.get("/").text.contains("href=\"/ups/metrics\""))
        await harness.shutdown()
    }

    @Test func requestsRefusedByBasicAuthenticationAreCountedOnce() async throws {
        let hash = try #require(BCrypt.hash(password: "scrape-pw", setting: "$2b$04$abcdefghijklmnopqrstuu"))
        let security = try loadWebSecurity(path: "/web.yml", files: .inMemory(["/web.yml": "basic_auth_users:\n  prom: \(hash)\n"]))
        let endpoints = try Self.endpoints()
        let handler = endpoints.makeHandler(security: security)
        let credentials = "Basic " + Data("prom:scrape-pw".utf8).base64EncodedString()
        #expect(try await handler.handle(WPHTTPRequest(method: "GET", target: "/metrics")).status == 401)
        #expect(try await handler.handle(WPHTTPRequest(method: "GET", target: "/nowhere")).status == 401)
        var authorized = WPHTTPRequest(method: "GET", target: "/metrics")
        authorized.headers.set(name: "Authorization", value: credentials)
        #expect(try await handler.handle(authorized).status == 200)
        let samples = Exposition.samples(String(decoding: endpoints.scrape.render(format: .text), as: UTF8.self))
        #expect(samples["winpower_exporter_requests_total{handler=\"/metrics\",code=\"401\"}"] == 1)
        #expect(samples["winpower_exporter_requests_total{handler=\"unmatched\",code=\"401\"}"] == 1)
        #expect(samples["winpower_exporter_requests_total{handler=\"/metrics\",code=\"200\"}"] == 1)
        #expect(samples.keys.filter { $0.hasPrefix("winpower_exporter_requests_total") }.count == 3, "nothing counted twice")
    }

    /// Configuration validation keeps `server.metrics_path` off exactly the other routes.
    @Test func theReservedPathsAreTheRoutersOtherPaths() throws {
        // /probe and /targets answer only with `servers` (404 otherwise: a reload may switch),
        // and are reserved in every configuration.
        var endpoints = try Self.endpoints()
        endpoints.frontEndRoutes = [try #require(StatusPage(publication: NoFleet(), wallClock: .system).routes)]
        #expect(endpoints.makeRouter().paths == Set(LoadState.reservedPaths + ["/metrics"]))
    }

    /// Endpoints over fixed closures, without a collector or a socket.
    static func endpoints(health: CollectorHealth = CollectorHealth(), now: Date = Date()) throws -> Endpoints {
        Endpoints(snapshot: { .empty }, health: { health },
                  sinceLastSuccess: { health.lastSuccess.map { .seconds(now.timeIntervalSince($0)) } },
                  stalenessWindow: .seconds(15),
                  target: "http://winpower.test:8081", version: "1.0.0", metricsPath: "/metrics",
                  startedAt: now.addingTimeInterval(-60), wallClock: .fixed(now), scrape: try ScrapeMetrics(build: .current))
    }

    @Test func landingPageEscapesTheTargetAndDropsCredentials() {
        #expect(ExporterSettings.target("https://user:pw@winpower.example:8081/a?x=1") == "https://winpower.example:8081/a")
        #expect(HTMLEscaping.escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        // A quote followed by a combining mark is one Character: still escaped.
        #expect(HTMLEscaping.escape("\"\u{301} '\u{301}") == "&quot;\u{301} &#39;\u{301}")
    }

    /// `/metrics` sends pre-compressed bytes, the landing page and `/health` are compressed by
    /// WPServer's encoder (when over 1 KiB; WPServerTests checks the encoder over the wire): one
    /// rule, WPServer's `ContentCoding`, decides for all of them.
    @Test(arguments: ["gzip", "gzip;q=0", "identity", "*", "*, gzip;q=0", "deflate, GZIP;q=0.5",
                      "gzip;q=abc", "gzip;q=0, gzip", "gzip, gzip;q=0"])
    func everyEndpointNegotiatesGzipAlike(header: String) async throws {
        let harness = try await ExporterHarness(devices: 20)
        await harness.exporter.collector.collect()
        let expected = ContentCoding.acceptsGzip([header])
        for path in ["/metrics", "/", "/health"] {
            let response = try await harness.get(path, headers: ["Accept-Encoding": header])
            #expect(response.status == 200)
            // The encoder leaves bodies under 1 KiB alone, whatever the request accepts.
            if path != "/metrics" && response.body.count < 1024 && response.header("Content-Encoding") == nil { continue }
            #expect((response.header("Content-Encoding") == "gzip") == expected, "\(path) with Accept-Encoding: \(header)")
        }
        await harness.shutdown()
    }
}

/// A fleet that never publishes: the status pages' routes without a collector.
struct NoFleet: FleetPublishing {
    var clock: ContinuousClock { ContinuousClock() }
    var current: FleetState<ContinuousClock> {
        FleetState(publishedAt: clock.now, servers: [], exposition: FleetExposition(snapshot: .empty))
    }
    func subscribe(_ subscriber: @escaping @Sendable (FleetState<ContinuousClock>) -> Void) {}
}
