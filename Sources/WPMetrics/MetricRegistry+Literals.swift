/// Create-and-register helpers for names written as literals, without `try`.
///
/// A metric whose name, label names and unit are string literals can only be wrong through a
/// programming mistake, found the first time the code runs; these overloads take them as
/// `StaticString` (so a name computed at run time does not compile here: use the throwing
/// `name:` versions for those), check them once at creation, and stop the process with a
/// message naming the mistake (the ``MetricsError`` the throwing version would have thrown)
/// instead of throwing. The same holds for what they register: a second metric with the same
/// name in the registry stops the process too.
///
/// ```swift
/// let registry = MetricRegistry()
/// let requests = registry.counterVec("http_requests_total", help: "Requests.", labelNames: ["method", "code"])
/// let inFlight = registry.gauge("http_requests_in_flight", help: "Requests in progress.")
/// ```
extension MetricRegistry {
    /// Creates and registers a ``WPCounter`` named by a literal; stops the process on an invalid
    /// name or unit, or a name already registered.
    public func counter(_ name: StaticString, help: String, unit: StaticString? = nil,
                        file: StaticString = #fileID, line: UInt = #line) -> WPCounter {
        declared(file, line) { () throws(MetricsError) in
            try counter(name: name.description, help: help, unit: unit.map(\.description))
        }
    }

    /// Creates and registers a ``WPGauge`` named by a literal; stops the process on an invalid
    /// name or unit, or a name already registered.
    public func gauge(_ name: StaticString, help: String, unit: StaticString? = nil,
                      file: StaticString = #fileID, line: UInt = #line) -> WPGauge {
        declared(file, line) { () throws(MetricsError) in
            try gauge(name: name.description, help: help, unit: unit.map(\.description))
        }
    }

    /// Creates and registers a ``WPHistogram`` named by a literal; stops the process on an
    /// invalid name, unit or buckets, or a name already registered.
    public func histogram(_ name: StaticString, help: String, unit: StaticString? = nil,
                          buckets: [Double] = Buckets.default,
                          file: StaticString = #fileID, line: UInt = #line) -> WPHistogram {
        declared(file, line) { () throws(MetricsError) in
            try histogram(name: name.description, help: help, unit: unit.map(\.description), buckets: buckets)
        }
    }

    /// Creates and registers a ``Summary`` named by a literal, timed by a continuous clock;
    /// stops the process on an invalid name, unit or objectives, or a name already registered.
    public func summary(_ name: StaticString, help: String, unit: StaticString? = nil,
                        configuration: Summary.Configuration = Summary.Configuration(),
                        file: StaticString = #fileID, line: UInt = #line) -> Summary {
        declared(file, line) { () throws(MetricsError) in
            try summary(name: name.description, help: help, unit: unit.map(\.description), configuration: configuration)
        }
    }

    /// Creates and registers a ``CounterVec`` named by literals; stops the process on an
    /// invalid name, label name or unit, or a name already registered.
    public func counterVec(_ name: StaticString, help: String, unit: StaticString? = nil, labelNames: [StaticString],
                           file: StaticString = #fileID, line: UInt = #line) -> CounterVec {
        declared(file, line) { () throws(MetricsError) in
            try counterVec(name: name.description, help: help, unit: unit.map(\.description), labelNames: labelNames.map(\.description))
        }
    }

    /// Creates and registers a ``GaugeVec`` named by literals; stops the process on an invalid
    /// name, label name or unit, or a name already registered.
    public func gaugeVec(_ name: StaticString, help: String, unit: StaticString? = nil, labelNames: [StaticString],
                         file: StaticString = #fileID, line: UInt = #line) -> GaugeVec {
        declared(file, line) { () throws(MetricsError) in
            try gaugeVec(name: name.description, help: help, unit: unit.map(\.description), labelNames: labelNames.map(\.description))
        }
    }

    /// Creates and registers a ``HistogramVec`` named by literals; stops the process on an
    /// invalid name, label name, unit or buckets, or a name already registered.
    public func histogramVec(_ name: StaticString, help: String, unit: StaticString? = nil, labelNames: [StaticString],
                             buckets: [Double] = Buckets.default,
                             file: StaticString = #fileID, line: UInt = #line) -> HistogramVec {
        declared(file, line) { () throws(MetricsError) in
            try histogramVec(name: name.description, help: help, unit: unit.map(\.description),
                             labelNames: labelNames.map(\.description), buckets: buckets)
        }
    }

    /// Creates and registers a ``SummaryVec`` named by literals, timed by a continuous clock;
    /// stops the process on an invalid name, label name, unit or objectives, or a name already
    /// registered.
    public func summaryVec(_ name: StaticString, help: String, unit: StaticString? = nil, labelNames: [StaticString],
                           configuration: Summary.Configuration = Summary.Configuration(),
                           file: StaticString = #fileID, line: UInt = #line) -> SummaryVec {
        declared(file, line) { () throws(MetricsError) in
            try summaryVec(name: name.description, help: help, unit: unit.map(\.description),
                           labelNames: labelNames.map(\.description), configuration: configuration)
        }
    }

    /// The message the literal overloads stop the process with for `error`.
    static func literalDeclarationFailure(_ error: MetricsError) -> String {
        "invalid metric declared with literal names: \(error) (the throwing name: overloads report this as an error)"
    }

    /// Runs a throwing declaration whose inputs are literals; a thrown error is a programming
    /// mistake, reported by stopping the process at the caller's line.
    private func declared<T>(_ file: StaticString, _ line: UInt, _ body: () throws(MetricsError) -> T) -> T {
        do {
            return try body()
        } catch {
            preconditionFailure(Self.literalDeclarationFailure(error), file: file, line: line)
        }
    }
}
