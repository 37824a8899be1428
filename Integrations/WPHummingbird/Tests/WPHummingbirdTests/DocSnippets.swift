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
#endif
