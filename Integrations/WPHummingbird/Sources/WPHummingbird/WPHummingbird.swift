#if os(Linux)
import HTTPTypes
import Hummingbird
import NIOCore
import WPServer

/// wpexporter's HTTP handlers on a Hummingbird router: the whole exporter's endpoints
/// (`exporter.router`: `/metrics`, `/health`, `/-/reload`, …) or any WPServer `HTTPHandler`,
/// served as WPServer serves them — the handler's own content negotiation (`Accept`:
/// OpenMetrics or text), and the body gzip-compressed when the client accepts it and it is
/// worth it, with `Content-Encoding: gzip` and `Vary: Accept-Encoding` once
/// (`WPHTTPResponse.prepared(acceptsGzip:gzipMinimumBytes:)`, the listener's own rules).
///
/// ```swift
/// let router = Router()
/// router.get("/hello") { _, _ in "hello" }
/// router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: "/metrics"))
/// ```
///
/// One `/metrics` for the service's families and the exporter's: register the exporter's in
/// the service's registry, serve that registry, and mount the other endpoints without a
/// metrics path (a second `GET /metrics` route would stop the router at start):
///
/// ```swift
/// let registry = MetricRegistry()                    // the service's own families
/// try exporter.register(in: registry)                // and every winpower_ family
/// router.mount(MetricsHandler(registry: registry), at: [("/metrics", [.get, .head])])
/// router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: nil))
/// ```
public enum WPHandlerRoutes {
    /// The exporter's endpoints and the methods each answers (docs/running.md); its metrics at
    /// `metricsPath`, or not at all for `nil` (the service serves them with its own).
    public static func exporterPaths(metricsPath: String? = "/metrics") -> [(path: String, methods: [HTTPRequest.Method])] {
        (metricsPath.map { [($0, [HTTPRequest.Method.get, .head])] } ?? [])
            + [("/health", [.get, .head]), ("/-/healthy", [.get, .head]), ("/-/ready", [.get, .head]),
               ("/-/reload", [.post, .put]), ("/probe", [.get, .head]), ("/targets", [.get, .head]), ("/", [.get, .head])]
    }

    /// The largest request body read (the exporter's endpoints take none); a longer one is
    /// answered 413.
    public static let defaultMaxRequestBodyBytes = 65_536

    /// `request` answered by `handler`: converted to a `WPHTTPRequest` (method, path and query,
    /// headers, the body up to `maxRequestBodyBytes`), and the answer back to a Hummingbird
    /// `Response` prepared as WPServer's listener prepares it (gzip when accepted and at least
    /// `gzipMinimumBytes` long, `nil` for never). A body over the limit gets 413; an error
    /// thrown by the handler 500, as WPServer answers.
    public static func respond(to request: Request, with handler: any HTTPHandler,
                               maxRequestBodyBytes: Int = defaultMaxRequestBodyBytes, gzipMinimumBytes: Int? = 1024) async -> Response {
        var headers = WPHTTPHeaders()
        for field in request.headers { headers.add(name: field.name.rawName, value: field.value) }
        var body: [UInt8] = []
        do {
            var buffer = try await request.body.collect(upTo: maxRequestBodyBytes)
            body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            return convert(WPHTTPResponse.text("request body too large\n", status: 413), isHead: false, acceptsGzip: false,
                           gzipMinimumBytes: nil)
        }
        let wpRequest = WPHTTPRequest(method: request.method.rawValue, target: request.head.path ?? "/", headers: headers, body: body)
        let response: WPHTTPResponse
        do {
            response = try await handler.handle(wpRequest)
        } catch {
            response = .text("internal server error\n", status: 500)
        }
        return convert(response, isHead: request.method == .head, acceptsGzip: wpRequest.acceptsGzip, gzipMinimumBytes: gzipMinimumBytes)
    }

    static func convert(_ response: WPHTTPResponse, isHead: Bool, acceptsGzip: Bool, gzipMinimumBytes: Int?) -> Response {
        let prepared = response.prepared(acceptsGzip: acceptsGzip, gzipMinimumBytes: gzipMinimumBytes)
        var fields = HTTPFields()
        for field in prepared.headers {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        let status = HTTPResponse.Status(code: response.status)
        if isHead {
            // A HEAD answer says how long the GET body would be, and carries none.
            fields[.contentLength] = String(prepared.body.count)
            return Response(status: status, headers: fields)
        }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: prepared.body)))
    }
}

extension RouterMethods {
    /// Mounts `handler` at each of `routes`' paths for its methods
    /// (``WPHandlerRoutes/exporterPaths(metricsPath:)`` for the exporter's endpoints).
    @discardableResult
    public func mount(_ handler: any HTTPHandler, at routes: [(path: String, methods: [HTTPRequest.Method])],
                      maxRequestBodyBytes: Int = WPHandlerRoutes.defaultMaxRequestBodyBytes, gzipMinimumBytes: Int? = 1024) -> Self {
        for route in routes {
            for method in route.methods {
                on(RouterPath(route.path), method: method) { request, _ -> Response in
                    await WPHandlerRoutes.respond(to: request, with: handler, maxRequestBodyBytes: maxRequestBodyBytes,
                                                  gzipMinimumBytes: gzipMinimumBytes)
                }
            }
        }
        return self
    }
}
#endif
