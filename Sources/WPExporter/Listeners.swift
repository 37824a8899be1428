public import WPLogging
package import WPNUT
public import WPServer

/// How an ``Exporter`` makes its listeners (``Exporter/Options/listeners``): sockets by
/// default, or fakes of a test or an embedder that serve without binding anything (a fake
/// HTTP listener is handed the exporter's handler and can call it). The NUT listener's seam is `package`:
/// the NUT protocol is no product.
public struct Listeners: Sendable {
    /// Makes the HTTP listener of `server.*` for `run(onListening:…)` (`runCollection` makes
    /// none): the configuration from `server.*` and the web configuration, the exporter's
    /// handler (every endpoint, authentication included), the logger of component `http`, and
    /// the request observer counting `winpower_exporter_requests_total`.
    public var http: @Sendable (_ configuration: WPHTTPServer.Configuration, _ handler: any HTTPHandler,
                                _ logger: WPLogger, _ observer: (any RequestObserver)?) -> any Listener<ConnectionStatistics>
    /// Makes the NUT listener of `nut.listen` (only when it is set): its configuration, the
    /// NUT protocol over the exporter's published readings, the logger of component `nut`.
    package var nut: @Sendable (_ configuration: LineServer<NUTProtocol>.Configuration, _ protocol: NUTProtocol,
                               _ logger: WPLogger) -> any Listener<LineServerStatistics>

    /// Listeners making the HTTP listener with `http` and the NUT listener on its socket.
    public init(http: @escaping @Sendable (_ configuration: WPHTTPServer.Configuration, _ handler: any HTTPHandler,
                                           _ logger: WPLogger, _ observer: (any RequestObserver)?) -> any Listener<ConnectionStatistics>) {
        self.init(http: http, nut: Listeners.sockets.nut)
    }

    package init(http: @escaping @Sendable (_ configuration: WPHTTPServer.Configuration, _ handler: any HTTPHandler,
                                           _ logger: WPLogger, _ observer: (any RequestObserver)?) -> any Listener<ConnectionStatistics>,
                nut: @escaping @Sendable (_ configuration: LineServer<NUTProtocol>.Configuration, _ protocol: NUTProtocol,
                                          _ logger: WPLogger) -> any Listener<LineServerStatistics>) {
        self.http = http
        self.nut = nut
    }

    /// An `WPHTTPServer` and a `LineServer` on their sockets: the default.
    public static var sockets: Listeners {
        Listeners(http: { configuration, handler, logger, observer in
            WPHTTPServer(configuration: configuration, handler: handler, logger: logger, observer: observer)
        }, nut: { configuration, nutProtocol, logger in
            LineServer(configuration: configuration, protocol: nutProtocol, logger: logger)
        })
    }
}
