import Synchronization

/// A set of collectors that is scraped together: the value you create, fill and render.
///
/// There is no global default registry; create one and pass it where it is needed. Names are
/// unique per registry: registering a second collector that produces a family name already
/// present throws (``MetricsError/alreadyRegistered(_:)`` when type, help and labels are the
/// same, ``MetricsError/conflictingRegistration(_:reason:)`` otherwise). All methods are safe to
/// call from any thread, also while another thread renders.
///
/// ```swift
/// let registry = MetricRegistry()
/// let requests = try registry.counterVec(name: "http_requests_total", help: "Requests.",
///                                        labelNames: ["code"])
/// try requests.labels("200").increment()
/// let body = registry.render(format: .negotiate(accept: acceptHeader))
/// ```
public final class MetricRegistry: Sendable {
    private struct State {
        var collectors: [(id: Int, collector: any Collector)] = []
        var descriptors: [String: (id: Int, descriptor: MetricDescriptor)] = [:]
        /// Collectors of already encoded families, each owning the names with its prefix.
        var encoded: [(id: Int, collector: any EncodedCollector)] = []
        var nextID = 0

        /// The encoded collector owning `name`, if any.
        func owner(of name: String) -> (any EncodedCollector)? {
            encoded.first { name.hasPrefix($0.collector.namePrefix) }?.collector
        }
    }

    private let state = Mutex(State())
    /// The size of the last body ``render(format:)`` returned, reserved for the next one.
    private let lastRenderedSize = Atomic<Int>(0)

    /// Creates an empty registry.
    public init() {}

    /// Adds a collector (or instrument) to the registry.
    ///
    /// - Parameter collector: The collector; its ``Collector/descriptors`` are checked.
    /// - Throws: ``MetricsError/alreadyRegistered(_:)`` or
    ///   ``MetricsError/conflictingRegistration(_:reason:)``; nothing is registered then.
    public func register(_ collector: any Collector) throws(MetricsError) {
        let descriptors = collector.descriptors
        let result: MetricsError? = state.withLock { state in
            var names = Set<String>()
            for descriptor in descriptors {
                for key in Self.conflictKeys(descriptor) {
                    if let existing = state.descriptors[key]?.descriptor {
                        return Self.conflict(existing, descriptor)
                    }
                    if let owner = state.owner(of: key) {
                        return .conflictingRegistration(descriptor.name, reason: "names starting with "
                                                        + "\(owner.namePrefix) belong to an encoded collector registered earlier")
                    }
                    guard names.insert(key).inserted else { return .alreadyRegistered(descriptor.name) }
                }
            }
            let id = state.nextID
            state.nextID += 1
            state.collectors.append((id, collector))
            for descriptor in descriptors {
                for key in Self.conflictKeys(descriptor) { state.descriptors[key] = (id, descriptor) }
            }
            return nil
        }
        if let result { throw result }
    }

    /// Adds a collector whose families arrive already encoded (another component's pre-rendered
    /// exposition), which from now on owns every family name starting with its
    /// ``EncodedCollector/namePrefix``.
    ///
    /// - Parameter collector: The encoded collector.
    /// - Throws: ``MetricsError/conflictingRegistration(_:reason:)`` when a registered family's
    ///   name starts with the prefix, when the prefix overlaps another encoded collector's, or
    ///   when it is not the start of a valid metric name; nothing is registered then.
    public func register(encoded collector: any EncodedCollector) throws(MetricsError) {
        let prefix = collector.namePrefix
        let result: MetricsError? = state.withLock { state in
            guard NameValidation.isValidMetricName(prefix) else {
                return .conflictingRegistration(prefix, reason: "an encoded collector's prefix must be the start of a valid metric name")
            }
            if let taken = state.descriptors.values.first(where: { $0.descriptor.name.hasPrefix(prefix) })?.descriptor.name
                ?? state.descriptors.keys.first(where: { $0.hasPrefix(prefix) }) {
                return .conflictingRegistration(prefix, reason: "\(taken) is already registered, and an encoded collector with "
                                                + "this prefix would own every name starting with it")
            }
            if let other = state.encoded.first(where: {
                $0.collector.namePrefix.hasPrefix(prefix) || prefix.hasPrefix($0.collector.namePrefix)
            }) {
                return .conflictingRegistration(prefix, reason: "the prefix overlaps \(other.collector.namePrefix), "
                                                + "the prefix of another encoded collector")
            }
            state.encoded.append((state.nextID, collector))
            state.nextID += 1
            return nil
        }
        if let result { throw result }
    }

    /// Removes an encoded collector registered with ``register(encoded:)`` (matched by identity).
    ///
    /// - Returns: Whether it was registered.
    @discardableResult
    public func unregister(encoded collector: some EncodedCollector & AnyObject) -> Bool {
        state.withLock { state in
            let before = state.encoded.count
            state.encoded.removeAll { ($0.collector as AnyObject) === collector }
            return state.encoded.count != before
        }
    }

    /// Removes a previously registered collector (matched by identity for classes).
    ///
    /// - Parameter collector: The collector to remove.
    /// - Returns: Whether it was registered.
    @discardableResult
    public func unregister(_ collector: some Collector & AnyObject) -> Bool {
        state.withLock { state in
            guard let index = state.collectors.firstIndex(where: { ($0.collector as AnyObject) === collector }) else {
                return false
            }
            let id = state.collectors[index].id
            state.collectors.remove(at: index)
            state.descriptors = state.descriptors.filter { $0.value.id != id }
            return true
        }
    }

    /// Removes the collector that registered the family `name` — any collector, structs
    /// included, with all the families it produces.
    ///
    /// - Parameter name: A family name the collector declared in its descriptors.
    /// - Returns: Whether such a collector was registered.
    @discardableResult
    public func unregister(named name: String) -> Bool {
        state.withLock { state in
            guard let id = state.descriptors.values.first(where: { $0.descriptor.name == name })?.id else { return false }
            state.collectors.removeAll { $0.id == id }
            state.descriptors = state.descriptors.filter { $0.value.id != id }
            return true
        }
    }

    /// Collects every family, sorted by name, each family's samples sorted by label values.
    /// Families of encoded collectors (``register(encoded:)``) are not among them: they exist
    /// only as encoded text, which ``render(format:)`` writes.
    ///
    /// - Returns: The families to render.
    public func collect() -> [MetricFamily] {
        let collectors = state.withLock { $0.collectors.map(\.collector) }
        var families: [MetricFamily] = []
        for collector in collectors {
            let presorted = collector is any PresortedCollector
            for var family in collector.collect() {
                if !presorted { family.sortSamples() }
                families.append(family)
            }
        }
        families.sort { $0.name < $1.name }
        return families
    }

    /// Collects and renders everything in one format.
    ///
    /// - Parameter format: The exposition format (see ``ExpositionFormat/negotiate(accept:)``).
    /// - Returns: The complete body.
    public func render(format: ExpositionFormat) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lastRenderedSize.load(ordering: .relaxed))
        render(format: format, into: &bytes)
        lastRenderedSize.store(bytes.count, ordering: .relaxed)
        return bytes
    }

    /// Collects and appends the rendering to a reusable buffer.
    ///
    /// The output is the encoding of ``collect()``; vectors of counters and gauges are written
    /// straight from their children (label sets rendered once per child, samples kept in order),
    /// without building the families.
    ///
    /// - Parameters:
    ///   - format: The exposition format.
    ///   - bytes: The buffer to append to.
    public func render(format: ExpositionFormat, into bytes: inout [UInt8]) {
        enum Part {
            case direct(any DirectlyRendered)
            case family(MetricFamily)
            case encoded(any EncodedCollector)
        }
        let (collectors, encoded) = state.withLock { ($0.collectors.map(\.collector), $0.encoded.map(\.collector)) }
        var parts: [(name: String, part: Part)] = []
        parts.reserveCapacity(collectors.count + encoded.count)
        // An encoded collector's families all start with its prefix and no other family does,
        // so its block sorts at its prefix.
        for collector in encoded { parts.append((collector.namePrefix, .encoded(collector))) }
        for collector in collectors {
            if let direct = collector as? any DirectlyRendered, direct.rendersDirectly {
                parts.append((direct.renderedFamilyName, .direct(direct)))
                continue
            }
            let presorted = collector is any PresortedCollector
            for var family in collector.collect() {
                if !presorted { family.sortSamples() }
                parts.append((family.name, .family(family)))
            }
        }
        // The same comparison on the same sequence of names as collect(): the same order.
        parts.sort { $0.name < $1.name }
        let encoder = ExpositionEncoder(format: format)
        for (_, part) in parts {
            switch part {
            case .direct(let collector): collector.render(format: format, into: &bytes)
            case .family(let family): encoder.encode(family, into: &bytes)
            case .encoded(let collector): collector.encode(format: format, into: &bytes)
            }
        }
        encoder.encode([], into: &bytes)  // the OpenMetrics `# EOF`
    }

    /// The names a descriptor occupies: its own, and for a counter `foo_total` also `foo`
    /// (its OpenMetrics family name), so `foo` and `foo_total` cannot both be registered.
    private static func conflictKeys(_ descriptor: MetricDescriptor) -> [String] {
        if descriptor.type == .counter, descriptor.name.hasSuffix("_total") {
            return [descriptor.name, String(descriptor.name.dropLast(6))]
        }
        return [descriptor.name]
    }

    private static func conflict(_ existing: MetricDescriptor, _ new: MetricDescriptor) -> MetricsError {
        if existing.type != new.type {
            return .conflictingRegistration(new.name, reason: "a \(existing.type.rawValue) of that name is registered; "
                                            + "this one is a \(new.type.rawValue)")
        }
        if existing.help != new.help {
            return .conflictingRegistration(new.name, reason: "a metric of that name is registered with a different help text")
        }
        if existing.labelNames != new.labelNames || existing.unit != new.unit || existing.name != new.name {
            return .conflictingRegistration(new.name, reason: "a metric of that name is registered with different label names or unit")
        }
        return .alreadyRegistered(new.name)
    }
}

/// A registry is a collector of its collectors' families, so one component's metrics can be
/// kept in a registry of its own, registered into a bigger one and removed from it together
/// (`unregister(_:)`), as the exporter does with each front end's. Only families built as
/// values are collected: an encoded collector's (``register(encoded:)``) text is left out.
extension MetricRegistry: Collector, PresortedCollector {
    /// The descriptors of every collector registered now.
    public var descriptors: [MetricDescriptor] {
        state.withLock { $0.collectors.map(\.collector) }.flatMap(\.descriptors)
    }
}
