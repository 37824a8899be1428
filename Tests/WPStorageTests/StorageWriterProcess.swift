import WPTestSupport

extension BenchChild {
    /// A `wpbench --child storage-writer DIR` process: saves state in a loop (or holds the
    /// lock), reporting `ready N` and `saved N` lines on stdout.
    static func storageWriter(directory: String, hold: Bool = false) throws -> BenchChild {
        try BenchChild(["storage-writer", directory] + (hold ? ["hold"] : []), standardInput: true)
    }
}
