// parameters: job: Job, writer: Writer, write: @escaping @Sendable ([String]) -> Void, lines: [String], report: @escaping @Sendable (any Error) -> Void
import WPRuntime

fileprivate struct Job: Sendable {}
fileprivate final class Writer: Sendable { func drain() {} }
