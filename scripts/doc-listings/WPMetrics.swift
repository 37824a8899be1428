// parameters: registry: MetricRegistry, acceptHeader: String?, families: [MetricFamily]
import WPMetrics

fileprivate final class JobQueue: Sendable { let count = 0; let depth = 0 }
