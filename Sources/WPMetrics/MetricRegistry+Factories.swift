/// Create-and-register helpers: each creates an instrument, registers it and returns it.
extension MetricRegistry {
    /// Creates and registers a ``WPCounter``.
    /// - Throws: ``MetricsError`` for invalid names or a name already registered.
    public func counter(name: String, help: String, unit: String? = nil) throws(MetricsError) -> WPCounter {
        try registered(try WPCounter(name: name, help: help, unit: unit))
    }

    /// Creates and registers a ``WPGauge``.
    /// - Throws: ``MetricsError`` for invalid names or a name already registered.
    public func gauge(name: String, help: String, unit: String? = nil) throws(MetricsError) -> WPGauge {
        try registered(try WPGauge(name: name, help: help, unit: unit))
    }

    /// Creates and registers a ``WPHistogram``.
    /// - Throws: ``MetricsError`` for invalid names or buckets, or a name already registered.
    public func histogram(
        name: String, help: String, unit: String? = nil, buckets: [Double] = Buckets.default
    ) throws(MetricsError) -> WPHistogram {
        try registered(try WPHistogram(name: name, help: help, unit: unit, buckets: buckets))
    }

    /// Creates and registers a ``Summary`` timed by `clock`.
    /// - Throws: ``MetricsError`` for invalid names or objectives, or a name already registered.
    public func summary<C: Clock<Duration>>(
        name: String, help: String, unit: String? = nil,
        configuration: Summary.Configuration = Summary.Configuration(), clock: C = ContinuousClock()
    ) throws(MetricsError) -> Summary {
        try registered(try Summary(name: name, help: help, unit: unit, configuration: configuration, clock: clock))
    }

    /// Creates and registers a ``CounterVec``.
    /// - Throws: ``MetricsError`` for invalid names or labels, or a name already registered.
    public func counterVec(name: String, help: String, unit: String? = nil, labelNames: [String]) throws(MetricsError) -> CounterVec {
        try registered(try CounterVec(name: name, help: help, unit: unit, labelNames: labelNames))
    }

    /// Creates and registers a ``GaugeVec``.
    /// - Throws: ``MetricsError`` for invalid names or labels, or a name already registered.
    public func gaugeVec(name: String, help: String, unit: String? = nil, labelNames: [String]) throws(MetricsError) -> GaugeVec {
        try registered(try GaugeVec(name: name, help: help, unit: unit, labelNames: labelNames))
    }

    /// Creates and registers a ``HistogramVec``.
    /// - Throws: ``MetricsError`` for invalid names, labels or buckets, or a name already registered.
    public func histogramVec(
        name: String, help: String, unit: String? = nil, labelNames: [String], buckets: [Double] = Buckets.default
    ) throws(MetricsError) -> HistogramVec {
        try registered(try HistogramVec(name: name, help: help, unit: unit, labelNames: labelNames, buckets: buckets))
    }

    /// Creates and registers a ``SummaryVec`` timed by `clock`.
    /// - Throws: ``MetricsError`` for invalid names, labels or objectives, or a name already registered.
    public func summaryVec<C: Clock<Duration>>(
        name: String, help: String, unit: String? = nil, labelNames: [String],
        configuration: Summary.Configuration = Summary.Configuration(), clock: C = ContinuousClock()
    ) throws(MetricsError) -> SummaryVec {
        try registered(try SummaryVec(name: name, help: help, unit: unit, labelNames: labelNames,
                                      configuration: configuration, clock: clock))
    }

    private func registered<T: Collector>(_ collector: T) throws(MetricsError) -> T {
        try register(collector)
        return collector
    }
}
