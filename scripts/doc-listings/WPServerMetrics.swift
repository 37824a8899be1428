// parameters: registry: MetricRegistry, server: WPHTTPServer, metricsHandler: any HTTPHandler
import WPMetrics
import WPServer
import WPServerMetrics
