import Synchronization
import Testing
import WPTestThreads
import WPServer

final class RecordingObserver: RequestObserver {
    let events = Mutex<[RequestEvent]>([])
    func requestHandled(_ event: RequestEvent) { events.withLock { $0.append(event) } }
}

struct Boom: Error {}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct RouterTests {
    func makeRouter(_ observer: RecordingObserver? = nil) -> WPRouter {
        var router = WPRouter(observer: observer)
        router.get("/metrics") { _ in .text("m") }
        router.post("/login") { _ in .text("ok") }
        router.add("PUT", "/login", HandlerFunction { _ in .text("put") })
        router.get("/boom") { _ in throw Boom() }
        return router
    }

    @Test func routesByMethodAndPath() async throws {
        let router = makeRouter()
        #expect(try await router.handle(WPHTTPRequest(method: "GET", target: "/metrics?x=1")).body == Array("m".utf8))
        #expect(try await router.handle(WPHTTPRequest(method: "HEAD", target: "/metrics")).status == 200)
        #expect(try await router.handle(WPHTTPRequest(method: "PUT", target: "/login")).body == Array("put".utf8))
    }

    @Test func pathsListEachRoutedPathOnce() {
        #expect(makeRouter().paths == ["/metrics", "/login", "/boom"])
    }

    @Test func unknownPathIs404() async throws {
        #expect(try await makeRouter().handle(WPHTTPRequest(method: "GET", target: "/nope")).status == 404)
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let response = try await makeRouter().handle(WPHTTPRequest(method: "GET", target: "/login"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "POST, PUT")
        let metrics = try await makeRouter().handle(WPHTTPRequest(method: "DELETE", target: "/metrics"))
        #expect(metrics.headers["Allow"] == "GET, HEAD")
    }

    @Test func observerSeesEveryRequestByRoute() async throws {
        let observer = RecordingObserver()
        let router = makeRouter(observer)
        _ = try await router.handle(WPHTTPRequest(method: "GET", target: "/metrics"))
        _ = try await router.handle(WPHTTPRequest(method: "GET", target: "/missing"))
        await #expect(throws: Boom.self) { try await router.handle(WPHTTPRequest(method: "GET", target: "/boom")) }
        let events = observer.events.withLock { $0 }
        #expect(events.map(\.handler) == ["/metrics", "unmatched", "/boom"])
        #expect(events.map(\.status) == [200, 404, 500])
        #expect(events.allSatisfy { $0.durationSeconds >= 0 })
    }
}
