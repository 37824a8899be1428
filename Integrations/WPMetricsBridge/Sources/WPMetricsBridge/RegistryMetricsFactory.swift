import CoreMetrics
import Synchronization
import WPMetrics

/// A swift-metrics backend writing into a WPMetrics ``MetricRegistry``, so that libraries
/// measuring through swift-metrics appear on the registry's `/metrics` page.
///
/// ```swift
/// let registry = MetricRegistry()
/// MetricsSystem.bootstrap(RegistryMetricsFactory(registry: registry))
/// Counter(label: "http.requests", dimensions: [("method", "GET")]).increment()
/// // http_requests_total{method="GET"} 1
/// ```
///
/// Mapping (names sanitized by ``PrometheusNames``, dimensions become labels, sorted by name):
///
/// | swift-metrics | WPMetrics | name |
/// |---|---|---|
/// | `Counter`, `FloatingPointCounter` | counter | `_total` appended unless present |
/// | `Gauge` (recorder, `aggregate: false`), `Meter` | gauge | as given |
/// | `Recorder` (`aggregate: true`) | summary (``Configuration/recorderSummary``) | as given |
/// | `Timer` | histogram in seconds, unit `seconds`, sums in whole nanoseconds (``Configuration/timerBuckets``) | `_seconds` appended unless present |
///
/// Conflicts never crash: a metric whose name is already used by another kind or with another
/// set of dimension keys, or that WPMetrics rejects (a name registered outside this factory, a
/// reserved label such as `le`), is dropped — its handler discards updates — and never silently:
/// it is counted in ``droppedFamilyName`` (`swift_metrics_dropped_total{name="…"}`, on the
/// registry's page whatever the configuration) and reported once per name through
/// ``Configuration/onProblem``. Metrics of the same kind with the same keys share
/// one family; `Gauge` and `Meter` share gauges, both counters share counters.
///
/// `destroy…` removes the handler's series; when a family has no series left it is
/// unregistered, and the next metric of that name may be of any kind. A handler used after its
/// series was destroyed records nothing visible.
public final class RegistryMetricsFactory: MetricsFactory {
    /// Tuning and reporting.
    public struct Configuration: Sendable {
        /// Histogram buckets of timers, in seconds; Prometheus' defaults (5 ms to 10 s).
        public var timerBuckets: [Double] = Buckets.default
        /// Quantiles and window of aggregating recorders.
        public var recorderSummary: Summary.Configuration = Summary.Configuration()
        /// Called once per Prometheus name with why a metric of that name was dropped (log it
        /// there); the drop is counted in ``RegistryMetricsFactory/droppedFamilyName`` either way.
        public var onProblem: @Sendable (Problem) -> Void = { _ in }

        public init() {}
    }

    /// Why a swift-metrics metric was dropped.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The swift-metrics label.
        public var label: String
        /// The Prometheus name it maps to.
        public var name: String
        /// What went wrong.
        public var reason: String

        public var description: String { "swift-metrics \"\(label)\" dropped as \(name): \(reason)" }
    }

    /// The counter of dropped metrics, by Prometheus name: registered with the factory, so a
    /// dropped metric shows on `/metrics` even when nothing handles ``Configuration/onProblem``.
    public static let droppedFamilyName = "swift_metrics_dropped_total"

    /// The registry metrics are created in.
    public let registry: MetricRegistry
    private let configuration: Configuration
    /// `nil` when the registry already held the name (registered by someone else).
    private let dropped: CounterVec?
    private let state = Mutex(State())

    private struct Family {
        var kind: Kind
        var labelNames: [String]
        var target: SeriesHandler.Target
    }

    private struct State {
        var families: [String: Family] = [:]
        var reported: Set<String> = []
    }

    enum Kind: String, Sendable {
        case counter, gauge, summary, histogram
    }

    /// Creates a factory writing into `registry`.
    public init(registry: MetricRegistry, configuration: Configuration = Configuration()) {
        self.registry = registry
        self.configuration = configuration
        dropped = try? registry.counterVec(name: Self.droppedFamilyName,
                                           help: "swift-metrics metrics this bridge dropped (name taken by another kind or "
                                               + "other dimension keys, or refused by the registry), by Prometheus name",
                                           labelNames: ["name"])
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        handler(.counter, label: label, name: PrometheusNames.withSuffix(PrometheusNames.metricName(label), "_total"),
                dimensions: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> FloatingPointCounterHandler {
        handler(.counter, label: label, name: PrometheusNames.withSuffix(PrometheusNames.metricName(label), "_total"),
                dimensions: dimensions)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> MeterHandler {
        handler(.gauge, label: label, name: PrometheusNames.metricName(label), dimensions: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        handler(aggregate ? .summary : .gauge, label: label, name: PrometheusNames.metricName(label),
                dimensions: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler {
        handler(.histogram, label: label,
                name: PrometheusNames.withSuffix(PrometheusNames.metricName(label), "_seconds"), dimensions: dimensions)
    }

    public func destroyCounter(_ handler: CounterHandler) { destroy(handler) }
    public func destroyFloatingPointCounter(_ handler: FloatingPointCounterHandler) { destroy(handler) }
    public func destroyMeter(_ handler: MeterHandler) { destroy(handler) }
    public func destroyRecorder(_ handler: RecorderHandler) { destroy(handler) }
    public func destroyTimer(_ handler: TimerHandler) { destroy(handler) }

    private func handler(_ kind: Kind, label: String, name: String, dimensions: [(String, String)]) -> SeriesHandler {
        var byName: [String: String] = [:]
        for (key, value) in dimensions { byName[PrometheusNames.labelName(key)] = value }
        let labelNames = byName.keys.sorted()
        let values = labelNames.map { byName[$0] ?? "" }
        let outcome: Result<SeriesHandler.Target, Problem> = state.withLock { state in
            if let family = state.families[name] {
                guard family.kind == kind, family.labelNames == labelNames else {
                    return .failure(Problem(label: label, name: name, reason:
                        "already a \(family.kind.rawValue) labelled \(family.labelNames), not a \(kind.rawValue) labelled \(labelNames)"))
                }
                return .success(family.target)
            }
            do {
                let target = try makeTarget(kind, label: label, name: name, labelNames: labelNames)
                state.families[name] = Family(kind: kind, labelNames: labelNames, target: target)
                return .success(target)
            } catch {
                return .failure(Problem(label: label, name: name, reason: "\(error)"))
            }
        }
        switch outcome {
        case .success(let target):
            return SeriesHandler(target: target, name: name, values: values)
        case .failure(let problem):
            let first = state.withLock { $0.reported.insert(name).inserted }
            if first {
                try? dropped?.labels(name).increment()
                configuration.onProblem(problem)
            }
            return SeriesHandler.dropped(name)
        }
    }

    private func makeTarget(_ kind: Kind, label: String, name: String,
                            labelNames: [String]) throws(MetricsError) -> SeriesHandler.Target {
        let help = "swift-metrics \(kind.rawValue) \(label)"
        switch kind {
        case .counter:
            return .counter(try registry.counterVec(name: name, help: help, labelNames: labelNames))
        case .gauge:
            return .gauge(try registry.gaugeVec(name: name, help: help, labelNames: labelNames))
        case .summary:
            return .summary(try registry.summaryVec(name: name, help: help, labelNames: labelNames,
                                                    configuration: configuration.recorderSummary))
        case .histogram:
            let timers = try TimerVec(name: name, help: help, labelNames: labelNames, buckets: configuration.timerBuckets)
            try registry.register(timers)
            return .timer(timers)
        }
    }

    private func destroy(_ handler: AnyObject) {
        guard let series = handler as? SeriesHandler else { return }
        state.withLock { state in
            // A handler of a family destroyed earlier (its name may now belong to a new family)
            // only empties its own, unregistered vector.
            let current = state.families[series.name]?.target.vector
            guard series.removeSeries(), let current, current === series.target.vector else { return }
            switch series.target {
            case .counter(let vec): registry.unregister(vec)
            case .gauge(let vec): registry.unregister(vec)
            case .summary(let vec): registry.unregister(vec)
            case .timer(let vec): registry.unregister(vec)
            case .none: return
            }
            state.families[series.name] = nil
        }
    }
}
