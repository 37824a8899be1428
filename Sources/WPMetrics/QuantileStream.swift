/// A targeted-quantile stream (Cormode, Korn, Muthukrishnan, Srivastava: "Effective
/// Computation of Biased Quantiles over Data Streams"), the algorithm behind the Go client's
/// summaries (github.com/beorn7/perks/quantile). Not thread-safe; ``Summary`` guards it.
struct QuantileStream {
    struct Target {
        let quantile: Double
        let epsilon: Double
    }

    private struct Entry {
        var value: Double
        var width: Double
        var delta: Double
    }

    private let targets: [Target]
    private let bufferCapacity: Int
    private var buffer: [Double] = []
    private var sorted = true
    private var entries: [Entry] = []
    private var scratch: [Entry] = []
    private var total: Double = 0

    init(targets: [Target], bufferCapacity: Int) {
        self.targets = targets
        self.bufferCapacity = max(1, bufferCapacity)
        buffer.reserveCapacity(self.bufferCapacity)
    }

    /// Number of observations inserted since the last reset.
    var count: Int { Int(total) + buffer.count }

    mutating func insert(_ value: Double) {
        buffer.append(value)
        sorted = false
        if buffer.count == bufferCapacity { flush() }
    }

    mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
        total = 0
        sorted = true
    }

    /// The estimated value at rank `q`; NaN when the stream is empty.
    mutating func query(_ q: Double) -> Double {
        if entries.isEmpty {
            // Exact answer from the unmerged buffer (better accuracy for small sets).
            if buffer.isEmpty { return .nan }
            sortBuffer()
            var index = Int((Double(buffer.count) * q).rounded(.up))
            if index > 0 { index -= 1 }
            return buffer[min(index, buffer.count - 1)]
        }
        flush()
        var rank = (q * total).rounded(.up)
        rank += (invariant(rank) / 2).rounded(.up)
        var previous = entries[0]
        var running: Double = 0
        for entry in entries.dropFirst() {
            running += previous.width
            if running + entry.width + entry.delta > rank { return previous.value }
            previous = entry
        }
        return previous.value
    }

    mutating func flush() {
        if buffer.isEmpty { return }
        sortBuffer()
        merge()
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func sortBuffer() {
        if !sorted {
            buffer.sort()
            sorted = true
        }
    }

    private func invariant(_ rank: Double) -> Double {
        var minimum = Double.greatestFiniteMagnitude
        for target in targets {
            let allowed: Double
            if target.quantile * total <= rank {
                allowed = (2 * target.epsilon * rank) / target.quantile
            } else {
                allowed = (2 * target.epsilon * (total - rank)) / (1 - target.quantile)
            }
            if allowed < minimum { minimum = allowed }
        }
        return minimum
    }

    /// Merges the sorted buffer into the entries in one linear pass (same ranks and deltas as
    /// inserting one by one), then compresses.
    private mutating func merge() {
        scratch.removeAll(keepingCapacity: true)
        scratch.reserveCapacity(entries.count + buffer.count)
        var rank: Double = 0
        var index = 0
        for value in buffer {
            while index < entries.count, entries[index].value <= value {
                rank += entries[index].width
                scratch.append(entries[index])
                index += 1
            }
            let delta = index < entries.count ? max(0, invariant(rank).rounded(.down) - 1) : 0
            scratch.append(Entry(value: value, width: 1, delta: delta))
            total += 1
            rank += 1
        }
        while index < entries.count {
            scratch.append(entries[index])
            index += 1
        }
        swap(&entries, &scratch)
        compress()
    }

    /// Merges neighbours whose combined width stays within the error invariant, walking from
    /// the largest value down, in one linear pass.
    private mutating func compress() {
        if entries.count < 2 { return }
        scratch.removeAll(keepingCapacity: true)
        var last = entries[entries.count - 1]
        var rank = total - 1 - last.width
        var index = entries.count - 2
        while index >= 0 {
            let entry = entries[index]
            if entry.width + last.width + last.delta <= invariant(rank) {
                last.width += entry.width
            } else {
                scratch.append(last)
                last = entry
            }
            rank -= entry.width
            index -= 1
        }
        scratch.append(last)
        entries.removeAll(keepingCapacity: true)
        entries.append(contentsOf: scratch.reversed())
    }
}
