/// Something that produces metric families when a registry is scraped.
///
/// Instruments (``WPCounter``, ``WPGauge``, ``WPHistogram``, ``Summary``, the vectors, ``Info``,
/// ``StateSet``) are collectors; so is anything that computes its families at scrape time,
/// like ``ProcessCollector`` or a snapshot of values gathered elsewhere.
///
/// ## Concurrency contract
/// A collector is `Sendable`: ``collect()`` may run on any thread, concurrently with itself
/// (two scrapes at once) and with any updates of the values it reports. It must return a
/// consistent view without blocking for long (no I/O waits on the network; reading `/proc` is
/// fine) and must not call back into the registry that holds it. It cannot await: for state
/// owned by an actor, use a ``SnapshotCollector`` the actor publishes to.
///
/// ## Registration contract
/// ``descriptors`` lists the families ``collect()`` can produce; the registry uses them to
/// reject duplicate names at registration time. A collector whose families are only known at
/// scrape time may return an empty list; the registry then cannot check its names, and the
/// collector is responsible for not clashing.
///
/// ```swift
/// struct QueueDepthCollector: Collector {
///     let queue: JobQueue
///     var descriptors: [MetricDescriptor] {
///         [MetricDescriptor(name: "jobs_queued", help: "Jobs waiting.", type: .gauge)]
///     }
///     func collect() -> [MetricFamily] {
///         guard var family = try? MetricFamily(name: "jobs_queued", help: "Jobs waiting.", type: .gauge)
///         else { return [] }
///         try? family.append(labelValues: [], value: Double(queue.count))
///         return [family]
///     }
/// }
/// ```
public protocol Collector: Sendable {
    /// The families this collector produces, for conflict checks at registration.
    var descriptors: [MetricDescriptor] { get }

    /// Produces the current families. Called at every scrape.
    ///
    /// - Returns: Families with validated samples; the registry sorts them.
    func collect() -> [MetricFamily]
}

/// Name, help, type, unit and label names of one family, without values.
public struct MetricDescriptor: Sendable, Hashable {
    /// The family name.
    public let name: String
    /// Help text.
    public let help: String
    /// The family type.
    public let type: MetricType
    /// OpenMetrics unit, or nil.
    public let unit: String?
    /// Label names shared by the family's samples.
    public let labelNames: [String]

    /// Creates a descriptor without validation; `validated()` checks it.
    public init(name: String, help: String, type: MetricType, unit: String? = nil, labelNames: [String] = []) {
        self.name = name
        self.help = help
        self.type = type
        self.unit = unit
        self.labelNames = labelNames
    }

    /// An empty family for this descriptor (validates all names).
    ///
    /// - Parameter capacity: Samples to reserve room for.
    /// - Returns: A family ready for ``MetricFamily/append(_:)``.
    /// - Throws: ``MetricsError`` if a name, label or unit is invalid.
    public func makeFamily(capacity: Int = 0) throws(MetricsError) -> MetricFamily {
        try MetricFamily(name: name, help: help, type: type, unit: unit, labelNames: labelNames, capacity: capacity)
    }

    /// Checks every name now, so instruments fail at creation rather than at scrape time.
    func validated() throws(MetricsError) -> MetricDescriptor {
        _ = try makeFamily()
        return self
    }
}

/// An instrument whose current state is one sample value (used by ``MetricVec`` children).
public protocol SampledMetric: AnyObject, Sendable {
    /// The value to expose right now.
    var sampleValue: SampleValue { get }
}

extension SampledMetric {
    /// A one-sample family for an unlabelled instrument.
    func singleFamily(_ descriptor: MetricDescriptor) -> [MetricFamily] {
        guard var family = try? descriptor.makeFamily(capacity: 1),
              (try? family.append(Sample(labelValues: [], value: sampleValue))) != nil else { return [] }
        return [family]
    }
}
