/// "Did you mean ...?" by edit distance, for unknown keys, variables and flags.
public enum Suggestion {
    /// The candidate closest to `input`, when it is close enough to be a likely typo.
    ///
    /// - Parameters:
    ///   - input: What was written.
    ///   - candidates: The valid names.
    /// - Returns: The best candidate within a distance of a third of its length (at least 2),
    ///   or nil.
    public static func closest(to input: String, in candidates: [String]) -> String? {
        var best: (String, Int)?
        let lowered = input.lowercased()
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance < best?.1 ?? Int.max { best = (candidate, distance) }
        }
        guard let (candidate, distance) = best else { return nil }
        return distance <= max(2, candidate.count / 3) ? candidate : nil
    }

    /// The Levenshtein distance between two strings, in characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// `; did you mean "x"?` (or without quotes, for flags) when a candidate is close enough,
    /// otherwise the empty string.
    ///
    /// - Parameters:
    ///   - input: What was written.
    ///   - candidates: The valid names.
    ///   - quote: Whether to quote the suggestion.
    /// - Returns: A suffix for an error message.
    public static func hint(_ input: String, _ candidates: [String], quote: Bool = true) -> String {
        guard let match = closest(to: input, in: candidates) else { return "" }
        return quote ? "; did you mean \"\(match)\"?" : "; did you mean \(match)?"
    }
}
