#if os(Linux)
import Hummingbird
import WPExporter
import WPHummingbird
import WPMetrics
import WPServerMetrics

/// README.md's snippet, compiled.
func readmeSnippet(exporter: Exporter<ContinuousClock>) {
    let router = Router()
    router.get("/hello") { _, _ in "hello\n" }
    router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: "/metrics"))
}

/// The one-`/metrics` recipe (WPHummingbird.swift, README.md, docs/embedding.md), compiled.
func oneMetricsSnippet(exporter: Exporter<ContinuousClock>, router: Router<BasicRequestContext>) throws {
    let registry = MetricRegistry()                    // the service's own families
    try exporter.register(in: registry)                // and every winpower_ family
    router.mount(MetricsHandler(registry: registry), at: [("/metrics", [.get, .head])])
    router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: nil))
}

/// docs/embedding.md's "Beside Hummingbird" line, compiled.
func embeddingSnippet(exporter: Exporter<ContinuousClock>, router: Router<BasicRequestContext>) {
    router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: "/metrics"))
}
#endif
