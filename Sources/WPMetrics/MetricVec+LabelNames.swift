import WPRuntime
extension MetricVec {
    /// The label names still to be given to ``labels(_:)-(String...)``: all of the
    /// descriptor's, less those fixed by ``curry(_:)``, in declaration order.
    public var remainingLabelNames: [String] {
        descriptor.labelNames.indices.filter { index in !curried.contains { $0.index == index } }
            .map { descriptor.labelNames[$0] }
    }

    /// The label values this vector fixes, by name (empty unless made by ``curry(_:)``).
    public var curriedLabels: [String: String] {
        Dictionary(uniqueKeysWithValues: curried.map { (descriptor.labelNames[$0.index], $0.value) })
    }

    /// The child for these labels given by name, created on first use:
    /// `try requests.labels(["method": "GET", "code": "200"])`.
    ///
    /// - Parameter labels: One value per label name of the vector (per name of
    ///   ``remainingLabelNames`` on a curried vector), in any order.
    /// - Returns: The child instrument.
    /// - Throws: ``MetricsError/invalidLabelName(_:metric:)`` for a name the vector does not
    ///   have, ``MetricsError/duplicateLabelName(_:metric:)`` for a name it has curried,
    ///   ``MetricsError/labelCountMismatch(metric:expected:got:)`` when one is missing.
    public func labels(_ labels: [String: String]) throws(MetricsError) -> Child {
        let remaining = remainingLabelNames
        for name in labels.keys where !remaining.contains(name) { throw notRemaining(name) }
        guard labels.count == remaining.count else {
            throw .labelCountMismatch(metric: descriptor.name, expected: remaining.count, got: labels.count)
        }
        return child(remaining: remaining.map { labels[$0] ?? "" })
    }

    /// A vector with some label values fixed, sharing this vector's children (Go's
    /// `CurryWith`): `let get = try requests.curry(["method": "GET"])`, then
    /// `try get.labels("200")` is `try requests.labels("GET", "200")`.
    ///
    /// The curried vector takes values for ``remainingLabelNames`` only; it can be curried
    /// again. Its `remove`, `reset`, `count` and `collect` see only the children with its
    /// curried values. Register the original vector, not a curried one (a curried vector has
    /// the same descriptor, so registering both is `alreadyRegistered`).
    ///
    /// - Parameter labels: Values for some of ``remainingLabelNames`` (an empty dictionary
    ///   returns an equivalent vector).
    /// - Returns: The curried vector.
    /// - Throws: ``MetricsError/invalidLabelName(_:metric:)`` for a name the vector does not
    ///   have, ``MetricsError/duplicateLabelName(_:metric:)`` for a name already curried.
    public func curry(_ labels: [String: String]) throws(MetricsError) -> MetricVec<Child> {
        var fixed = curried
        for (name, value) in labels {
            guard let index = descriptor.labelNames.firstIndex(of: name),
                  !fixed.contains(where: { $0.index == index }) else { throw notRemaining(name) }
            fixed.append((index, value))
        }
        fixed.sort { $0.index < $1.index }
        return MetricVec(curriedFrom: self, curried: fixed)
    }

    /// The error for a label name given that is not among ``remainingLabelNames``: unknown,
    /// or already curried.
    func notRemaining(_ name: String) -> MetricsError {
        descriptor.labelNames.contains(name) ? .duplicateLabelName(name, metric: descriptor.name)
                                             : .invalidLabelName(name, metric: descriptor.name)
    }
}

extension WPHistogram {
    /// Observes a duration, in seconds (the Prometheus base unit).
    public func observe(_ duration: Duration) {
        observe(duration.inSeconds)
    }
}

extension Summary {
    /// Observes a duration, in seconds (the Prometheus base unit).
    public func observe(_ duration: Duration) {
        observe(duration.inSeconds)
    }
}
