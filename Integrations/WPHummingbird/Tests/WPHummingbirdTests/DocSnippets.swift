#if os(Linux)
import Hummingbird
import WPExporter
import WPHummingbird

/// README.md's snippet, compiled.
func readmeSnippet(exporter: Exporter<ContinuousClock>) {
    let router = Router()
    router.get("/hello") { _, _ in "hello\n" }
    router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: "/metrics"))
}

/// docs/embedding.md's "Beside Hummingbird" line, compiled.
func embeddingSnippet(exporter: Exporter<ContinuousClock>, router: Router<BasicRequestContext>) {
    router.mount(exporter.router, at: WPHandlerRoutes.exporterPaths(metricsPath: "/metrics"))
}
#endif
