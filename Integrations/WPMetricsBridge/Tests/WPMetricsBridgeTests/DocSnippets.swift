// The Swift examples of README.md and docs/embedding.md §7 (the metrics half), as written there,
// wrapped in functions that are compiled but never called (bootstrapping is once per process).
import Metrics
import WPLogging
import WPMetrics
import WPMetricsBridge

func readmeBootstrapSnippet() {
    let registry = MetricRegistry()
    MetricsSystem.bootstrap(RegistryMetricsFactory(registry: registry))
    Counter(label: "http.requests", dimensions: [("method", "GET")]).increment()
    // registry.render(format: .text):
    // http_requests_total{method="GET"} 1
}

func readmeProblemSnippet(logger: WPLogger) {
    var configuration = RegistryMetricsFactory.Configuration()
    configuration.onProblem = { problem in logger.warn("metric dropped", ["problem": "\(problem)"]) }
}
