/// The non-throwing fast path for vectors: label names checked once, children got without `try`.
///
/// ``MetricVec/labels(_:)-(String...)`` throws because the number of values is only known at
/// run time. When the label names are fixed in code, check them once with
/// ``MetricVec/checkedLabels(_:_:)`` (one, two or three names, in any order) and keep the
/// returned handle: its `labels` takes exactly that many values, so it cannot be given the
/// wrong number and never throws. The instruments' updates (`increment()`, `set(_:)`,
/// `observe(_:)`) don't throw either, so a hot path needs no `try` at all:
///
/// ```swift
/// let requests = try registry.counterVec(name: "http_requests_total", help: "Requests.",
///                                        labelNames: ["method", "code"])
///     .checkedLabels("method", "code")                      // throws here, once, if the names are wrong
/// requests.labels("GET", "200").increment()                 // no try
/// ```
///
/// The handle finds or creates the child as the vector's `labels("GET", "200")` does, at the
/// same cost (the values are compared in place, no array per call); for the hottest paths, keep the child
/// itself (`let ok = requests.labels("GET", "200")`, then `ok.increment()`).
/// Handles of a curried vector take its ``MetricVec/remainingLabelNames``.
public struct CheckedLabels1<Child: SampledMetric>: Sendable {
    /// The vector the children belong to.
    public let vector: MetricVec<Child>

    /// The child for this label value, created on first use.
    public func labels(_ value: String) -> Child {
        vector.child(value)
    }
}

/// A vector with two label names checked once (see ``CheckedLabels1``).
public struct CheckedLabels2<Child: SampledMetric>: Sendable {
    /// The vector the children belong to.
    public let vector: MetricVec<Child>
    /// Whether the names were given in the other order than declared.
    let swapped: Bool

    /// The child for these label values, in the order of the names given to `checkedLabels`.
    public func labels(_ first: String, _ second: String) -> Child {
        swapped ? vector.child(second, first) : vector.child(first, second)
    }
}

/// A vector with three label names checked once (see ``CheckedLabels1``).
public struct CheckedLabels3<Child: SampledMetric>: Sendable {
    /// The vector the children belong to.
    public let vector: MetricVec<Child>
    /// For each remaining label, in declared order, which argument holds its value; nil when
    /// the names were given in declared order.
    let order: [Int]?

    /// The child for these label values, in the order of the names given to `checkedLabels`.
    public func labels(_ first: String, _ second: String, _ third: String) -> Child {
        guard let order else { return vector.child(first, second, third) }
        func value(_ index: Int) -> String { index == 0 ? first : index == 1 ? second : third }
        return vector.child(value(order[0]), value(order[1]), value(order[2]))
    }
}

extension MetricVec {
    /// Checks once that the vector's label (its remaining label, when curried) is `name`.
    ///
    /// - Returns: A handle whose `labels(_:)` cannot throw.
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)`` when the vector has
    ///   another number of labels, ``MetricsError/invalidLabelName(_:metric:)`` for a name it
    ///   does not have, ``MetricsError/duplicateLabelName(_:metric:)`` for a curried one.
    public func checkedLabels(_ name: String) throws(MetricsError) -> CheckedLabels1<Child> {
        _ = try argumentOrder([name])
        return CheckedLabels1(vector: self)
    }

    /// Checks once that the vector's labels (its remaining labels, when curried) are these two
    /// names, in any order; the handle's `labels(_:_:)` takes the values in this order.
    ///
    /// - Returns: A handle whose `labels(_:_:)` cannot throw.
    /// - Throws: As ``checkedLabels(_:)``, and ``MetricsError/duplicateLabelName(_:metric:)``
    ///   for a name given twice.
    public func checkedLabels(_ first: String, _ second: String) throws(MetricsError) -> CheckedLabels2<Child> {
        let order = try argumentOrder([first, second])
        return CheckedLabels2(vector: self, swapped: order != [0, 1])
    }

    /// Checks once that the vector's labels (its remaining labels, when curried) are these
    /// three names, in any order; the handle's `labels(_:_:_:)` takes the values in this order.
    ///
    /// - Returns: A handle whose `labels(_:_:_:)` cannot throw.
    /// - Throws: As ``checkedLabels(_:_:)``.
    public func checkedLabels(_ first: String, _ second: String, _ third: String) throws(MetricsError) -> CheckedLabels3<Child> {
        let order = try argumentOrder([first, second, third])
        return CheckedLabels3(vector: self, order: order == [0, 1, 2] ? nil : order)
    }

    /// For each remaining label name in declared order, the index of `names` that holds it.
    private func argumentOrder(_ names: [String]) throws(MetricsError) -> [Int] {
        let remaining = remainingLabelNames
        var seen = Set<String>()
        for name in names {
            guard remaining.contains(name) else { throw notRemaining(name) }
            guard seen.insert(name).inserted else { throw .duplicateLabelName(name, metric: descriptor.name) }
        }
        guard names.count == remaining.count else {
            throw .labelCountMismatch(metric: descriptor.name, expected: remaining.count, got: names.count)
        }
        return remaining.compactMap { names.firstIndex(of: $0) }
    }
}
