import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One child of a vector: its full label values, their hash, the instrument, and for counter
/// and gauge vectors its rendered line prefix (`name{a="x",b="y"} `).
final class ChildEntry: Sendable {
    /// Label values in the order of the descriptor's label names.
    let values: [String]
    /// ``ChildTable/hash(_:)`` of `values`.
    let hash: Int
    /// The instrument.
    let child: any SampledMetric
    /// The instrument when its value is one number (a counter or a gauge), read when rendering.
    let scalar: (any ScalarMetric)?
    /// `sample_name{labels} ` in the text format; empty when the vector is not rendered directly.
    let textPrefix: [UInt8]
    /// The same in OpenMetrics, nil when it is the text one (it differs only for a counter
    /// whose name lacks `_total`).
    let openMetricsPrefix: [UInt8]?
    private let removed = Atomic<Bool>(false)

    init(values: [String], hash: Int, child: any SampledMetric, names: ChildTable.LineNames?) {
        self.values = values
        self.hash = hash
        self.child = child
        self.scalar = child as? any ScalarMetric
        guard let names else {
            textPrefix = []
            openMetricsPrefix = nil
            return
        }
        var labels: [UInt8] = []
        names.labels.write(values, into: &labels)
        func prefix(_ name: [UInt8]) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(name.count + labels.count + 1)
            bytes.append(contentsOf: name)
            bytes.append(contentsOf: labels)
            bytes.append(UInt8(ascii: " "))
            return bytes
        }
        textPrefix = prefix(names.text)
        openMetricsPrefix = names.openMetrics.map(prefix)
    }

    /// Whether the child was removed from its vector (it leaves the sorted list at the next scrape).
    var isRemoved: Bool { removed.load(ordering: .acquiring) }

    func markRemoved() { removed.store(true, ordering: .releasing) }

    /// The order of samples in a family (``MetricFamily/sortSamples()``): label values compared
    /// one by one.
    static func precedes(_ lhs: ChildEntry, _ rhs: ChildEntry) -> Bool {
        for (left, right) in zip(lhs.values, rhs.values) where left != right {
            return left < right
        }
        return false
    }
}

/// An instrument whose value is one number, read without building a ``SampleValue``.
protocol ScalarMetric: AnyObject, Sendable {
    var value: Double { get }
}

extension WPCounter: ScalarMetric {}
extension WPGauge: ScalarMetric {}

/// The children of a vector, found by label values without a global lock and kept in sample
/// order for scrapes.
///
/// Lookup: the hash of the label values is computed first; it picks one of 16 stripes, each a
/// dictionary from hash to entries published as an immutable snapshot, which a lookup reads
/// without taking a lock (see `Stripe`): a thread never waits for another to find an existing
/// child, even one descheduled in the middle of a lookup. Creating or removing a child takes the
/// stripe's lock and publishes a new snapshot (a copy of that stripe's dictionary). Values given as separate strings are compared in
/// place: no array is built unless a child is created.
///
/// Order: a new child is appended to a pending list; the next scrape sorts only the pending
/// children and merges them into the sorted list, so a scrape of a vector whose children did not
/// change sorts nothing. A removed child is flagged and left out at the next scrape.
final class ChildTable: Sendable {
    /// Sample names and label writer for the rendered prefixes of counter and gauge vectors.
    struct LineNames: Sendable {
        let text: [UInt8]
        let openMetrics: [UInt8]?
        let labels: LabelWriter
    }

    /// A stripe's entries as last published, read without a lock.
    private final class Snapshot: Sendable {
        let table: [Int: Bucket]
        init(_ table: [Int: Bucket]) { self.table = table }
    }

    /// One stripe: the entries, changed under `table`'s lock, and the snapshot of them readers
    /// use without taking it.
    ///
    /// Reading: count oneself in `readers`, load `published`, look up, count oneself out; no
    /// reader ever waits. Writing (under the lock): change the table, publish a snapshot of it,
    /// then wait until no reader is counted before releasing the previous snapshot. A reader
    /// counted after the new snapshot was published can only load the new one (all four
    /// operations are sequentially consistent), so the previous one is released only once no
    /// reader can still hold it unretained. Writers are rare (a child created or removed), and a
    /// reader is counted only for one dictionary lookup.
    private final class Stripe: @unchecked Sendable {
        private let readers = Atomic<Int>(0)
        private let published: Atomic<Unmanaged<Snapshot>>
        let table = Mutex<[Int: Bucket]>([:])
        /// Keeps neighbouring stripes on separate cache lines.
        private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

        init() {
            published = Atomic(Unmanaged.passRetained(Snapshot([:])))
        }

        deinit {
            published.load(ordering: .relaxed).release()
        }

        /// The published entry that hashes to `hash` and satisfies `matches`, without a lock.
        @inline(__always)
        func find(_ hash: Int, _ matches: (ChildEntry) -> Bool) -> ChildEntry? {
            readers.add(1, ordering: .sequentiallyConsistent)
            let found = published.load(ordering: .sequentiallyConsistent)._withUnsafeGuaranteedRef {
                $0.table[hash]?.first(where: matches)
            }
            readers.subtract(1, ordering: .sequentiallyConsistent)
            return found
        }

        /// Publishes `table` for readers; called with the lock held, after changing it.
        func publish(_ table: [Int: Bucket]) {
            let previous = published.exchange(Unmanaged.passRetained(Snapshot(table)), ordering: .sequentiallyConsistent)
            while readers.load(ordering: .sequentiallyConsistent) != 0 {
                ChildTable.yieldProcessor()
            }
            previous.release()
        }
    }

    /// Lets a reader that was descheduled while counted run (a writer waiting for it).
    static func yieldProcessor() {
        #if canImport(Glibc)
        sched_yield()
        #elseif canImport(Darwin)
        sched_yield()
        #endif
    }

    private enum Bucket {
        case one(ChildEntry)
        case many([ChildEntry])

        func first(where matches: (ChildEntry) -> Bool) -> ChildEntry? {
            switch self {
            case .one(let entry): return matches(entry) ? entry : nil
            case .many(let entries): return entries.first(where: matches)
            }
        }
    }

    private struct Order {
        var sorted: [ChildEntry] = []
        var pending: [ChildEntry] = []
        var removals = false
        /// Changes each time `sorted` changes.
        var version = 0
    }

    private static let stripeBits = 4
    private let stripes: [Stripe]
    private let order = Mutex(Order())
    private let entryCount = Atomic<Int>(0)
    /// Set for counter and gauge vectors, whose entries carry rendered prefixes.
    let lineNames: LineNames?

    init(lineNames: LineNames?) {
        self.lineNames = lineNames
        stripes = (0..<(1 << Self.stripeBits)).map { _ in Stripe() }
    }

    // MARK: Hashing

    static func hash(_ values: [String]) -> Int {
        var hasher = Hasher()
        for value in values { hasher.combine(value) }
        return hasher.finalize()
    }

    static func hash(_ first: String) -> Int {
        var hasher = Hasher()
        hasher.combine(first)
        return hasher.finalize()
    }

    static func hash(_ first: String, _ second: String) -> Int {
        var hasher = Hasher()
        hasher.combine(first)
        hasher.combine(second)
        return hasher.finalize()
    }

    static func hash(_ first: String, _ second: String, _ third: String) -> Int {
        var hasher = Hasher()
        hasher.combine(first)
        hasher.combine(second)
        hasher.combine(third)
        return hasher.finalize()
    }

    @inline(__always)
    private func stripe(_ hash: Int) -> Stripe {
        stripes[Int(truncatingIfNeeded: UInt(bitPattern: hash) >> (UInt.bitWidth - Self.stripeBits))]
    }

    // MARK: Lookup

    /// The entry whose values satisfy `matches` (the caller's comparison with the values that
    /// hash to `hash`), created with `values()` and `makeChild()` when there is none.
    @inline(__always)
    func entry(hash: Int, matches: (ChildEntry) -> Bool, values: () -> [String],
               makeChild: () -> any SampledMetric) -> ChildEntry {
        let stripe = stripe(hash)
        if let found = stripe.find(hash, matches) { return found }
        let candidate = ChildEntry(values: values(), hash: hash, child: makeChild(), names: lineNames)
        return stripe.table.withLock { table in
            if let found = table[hash]?.first(where: matches) { return found }
            switch table[hash] {
            case nil: table[hash] = .one(candidate)
            case .one(let other): table[hash] = .many([other, candidate])
            case .many(let others): table[hash] = .many(others + [candidate])
            }
            stripe.publish(table)
            entryCount.add(1, ordering: .relaxed)
            order.withLock { $0.pending.append(candidate) }
            return candidate
        }
    }

    /// Removes the entry with exactly these values.
    func remove(_ values: [String]) -> Bool {
        let hash = Self.hash(values)
        let stripe = stripe(hash)
        let removed: ChildEntry? = stripe.table.withLock { table in
            guard let bucket = table[hash], let entry = bucket.first(where: { $0.values == values }) else { return nil }
            switch bucket {
            case .one: table[hash] = nil
            case .many(let entries):
                let rest = entries.filter { $0 !== entry }
                table[hash] = rest.count == 1 ? .one(rest[0]) : .many(rest)
            }
            stripe.publish(table)
            return entry
        }
        guard let removed else { return false }
        retire([removed])
        return true
    }

    /// Removes every entry whose values satisfy `condition`.
    func removeAll(where condition: (ChildEntry) -> Bool) {
        var removed: [ChildEntry] = []
        for stripe in stripes {
            stripe.table.withLock { table in
                let before = removed.count
                for (hash, bucket) in table {
                    let entries: [ChildEntry]
                    switch bucket {
                    case .one(let entry): entries = [entry]
                    case .many(let all): entries = all
                    }
                    let gone = entries.filter(condition)
                    if gone.isEmpty { continue }
                    removed += gone
                    let rest = entries.filter { !condition($0) }
                    table[hash] = rest.isEmpty ? nil : rest.count == 1 ? .one(rest[0]) : .many(rest)
                }
                if removed.count > before { stripe.publish(table) }
            }
        }
        retire(removed)
    }

    private func retire(_ entries: [ChildEntry]) {
        guard !entries.isEmpty else { return }
        for entry in entries { entry.markRemoved() }
        entryCount.subtract(entries.count, ordering: .relaxed)
        order.withLock { $0.removals = true }
    }

    /// Number of entries.
    var count: Int { entryCount.load(ordering: .relaxed) }

    /// Number of entries whose values satisfy `condition`.
    func count(where condition: (ChildEntry) -> Bool) -> Int {
        stripes.reduce(0) { total, stripe in
            total + stripe.table.withLock { table in
                table.values.reduce(0) { sum, bucket in
                    switch bucket {
                    case .one(let entry): return sum + (condition(entry) ? 1 : 0)
                    case .many(let entries): return sum + entries.count(where: condition)
                    }
                }
            }
        }
    }

    // MARK: Order

    /// The entries sorted by label values (``ChildEntry/precedes(_:_:)``), brought up to date
    /// with the children created and removed since the last call.
    func sorted() -> [ChildEntry] {
        sortedWithVersion().entries
    }

    /// ``sorted()`` and a number that changes whenever it does.
    func sortedWithVersion() -> (entries: [ChildEntry], version: Int) {
        order.withLock { order in
            if !order.pending.isEmpty || order.removals {
                var fresh = order.pending.filter { !$0.isRemoved }
                fresh.sort(by: ChildEntry.precedes)
                let base = order.removals ? order.sorted.filter { !$0.isRemoved } : order.sorted
                order.sorted = Self.merge(base, fresh)
                order.pending = []
                order.removals = false
                order.version += 1
            }
            return (order.sorted, order.version)
        }
    }

    private static func merge(_ left: [ChildEntry], _ right: [ChildEntry]) -> [ChildEntry] {
        if right.isEmpty { return left }
        if left.isEmpty { return right }
        var merged: [ChildEntry] = []
        merged.reserveCapacity(left.count + right.count)
        var leftIndex = 0
        var rightIndex = 0
        while leftIndex < left.count, rightIndex < right.count {
            if ChildEntry.precedes(right[rightIndex], left[leftIndex]) {
                merged.append(right[rightIndex])
                rightIndex += 1
            } else {
                merged.append(left[leftIndex])
                leftIndex += 1
            }
        }
        merged.append(contentsOf: left[leftIndex...])
        merged.append(contentsOf: right[rightIndex...])
        return merged
    }
}
