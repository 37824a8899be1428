import Foundation

/// Helper processes that tests start (and may kill) through `wpbench --child NAME ARGS...`.
enum ChildProcesses {
    /// Name → entry point returning the exit status. Areas add their own entries.
    /// (Closures rather than the functions themselves: Swift 6.0 crashes converting those to @Sendable.)
    static let all: [String: @Sendable ([String]) async -> Int32] = [
        "exposition-sample": { await MetricsExpositionSample.run($0) },
        "history-fill": { await HistoryFillChild.run($0) },
        "history-writer": { await HistoryWriterChild.run($0) },
        "http-serve": { await ServerBench.serveChild($0) },
        "storage-writer": { await StorageWriterChild.run($0) },
    ]

    static func run(_ arguments: [String]) async -> Int32 {
        guard let name = arguments.first, let entry = all[name] else {
            FileHandle.standardError.write(Data("wpbench --child: unknown child '\(arguments.first ?? "")'; known: \(all.keys.sorted().joined(separator: ", "))\n".utf8))
            return 64
        }
        return await entry(Array(arguments.dropFirst()))
    }
}
