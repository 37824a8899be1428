#if os(Linux)
import ServiceLifecycle
import WPExporter
import WPServer

/// The whole WinPower exporter (WPExporter's ``Exporter``) as a swift-service-lifecycle
/// `Service` (Linux only, as WPExporter).
///
/// `run()` runs the exporter until the group's graceful shutdown: either with its own listener
/// (``Listener/own(onListening:)``: `server.host:server.port`, TLS and basic authentication, as
/// `wpexporter server`) or collecting only (``Listener/none``: the service serves the
/// exporter's `router`, or its families through `register(in:)`, itself).
///
/// - **Graceful shutdown** of the group ends the exporter's run: collections in flight finish
///   within `scheduler.graceful_shutdown_timeout`, then the energy totals are saved (waiting at
///   most `Exporter.finalSaveTimeout`) and the data directory is released; `run()` returns
///   after that.
/// - **Cancellation** (the group cancelling its services, e.g. after another one failed, or on
///   one of its `cancellationSignals`) stops it the same way at once, still saving the totals.
/// - **Failures are thrown**, naming the key at fault (`nut.listen: cannot listen on …`, a
///   taken `server.port`), which ends the group as any failing service does.
/// - **Reloads**: each element of `reloadRequests` reloads the configuration through the
///   exporter's `Options.reload` (logged, counted and shown in `/health` like SIGHUP). Feed it
///   from WPProcess' `SignalRequests` for SIGHUP, or from any trigger the service owns.
/// - **A second signal** while shutting down is the group's policy: list `.sigterm` among its
///   `cancellationSignals` (or set `maximumGracefulShutdownDuration`) and the exporter's run is
///   cancelled, which saves the totals and returns at once instead of waiting for collections.
///
/// The exporter registers every configured password with its logger's redactor itself
/// (`ExporterSecrets`), at start and after each reload.
///
/// ```swift
/// let exporter = try Exporter(configuration: configuration, options: .init(
///     clock: ContinuousClock(), logger: log))
/// let group = ServiceGroup(configuration: .init(
///     services: [ExporterService(exporter, listener: .own(onListening: { print("listening on \($0)") }))],
///     gracefulShutdownSignals: [.sigterm], cancellationSignals: [.sigint], logger: logger))
/// try await group.run()
/// ```
public struct ExporterService<C: Clock>: Service where C.Duration == Duration {
    /// Whether the exporter binds its own listener.
    public enum Listener: Sendable {
        /// `server.host:server.port`; `onListening` is told the bound address.
        case own(onListening: @Sendable (ServerAddress) async -> Void)
        /// None: the service serves `exporter.router` or `register(in:)` itself.
        case none
    }

    /// The exporter this service runs. Run it once: an exporter is not restarted.
    public let exporter: Exporter<C>
    private let listener: Listener
    private let reloadRequests: AsyncStream<Void>?

    /// A service running `exporter`.
    ///
    /// - Parameters:
    ///   - exporter: the exporter, built with the configuration and options it runs with.
    ///   - listener: ``Listener/own(onListening:)`` by default, telling nobody the address.
    ///   - reloadRequests: each element reloads the configuration; none by default.
    public init(_ exporter: Exporter<C>, listener: Listener = .own(onListening: { _ in }),
                reloadRequests: AsyncStream<Void>? = nil) {
        self.exporter = exporter
        self.listener = listener
        self.reloadRequests = reloadRequests
    }

    public func run() async throws {
        // Returns at the group's graceful shutdown, or when the task is cancelled.
        let shutdown: @Sendable () async -> Void = { try? await gracefulShutdown() }
        switch listener {
        case .own(let onListening):
            try await exporter.run(onListening: onListening, reloadRequests: reloadRequests, until: shutdown)
        case .none:
            try await exporter.runCollection(reloadRequests: reloadRequests, until: shutdown)
        }
    }
}
#endif
