import Foundation
import Testing
import WPTestThreads

/// Every Swift example of the docs and the integrations' READMEs is compiled (Examples/DocSnippets, or the
/// integrations' DocSnippets.swift test files) *as written in the doc*: each example's lines,
/// trimmed, appear in that order in one compiled file, which may add wrapping lines (a function
/// around it, the values it uses, a `return`). So an example edited in the doc and not in the
/// snippets, or the other way round, fails here, and `swift build` fails on one that no longer
/// compiles. The few examples that are not compiled are listed below, each with its reason.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DocSnippetsSyncTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Every page with a Swift listing, by its path in the repository, read from the
    /// directories (the README, docs/ and its Chinese pages, each integration's README): a page
    /// added later is checked without being named here.
    static let docs: [String] = {
        let manager = FileManager.default
        let integrations = ((try? manager.contentsOfDirectory(atPath: root.appending(path: "Integrations").path)) ?? [])
            .map { "Integrations/\($0)/README.md" }
        var pages = ["README.md", "README.zh-CN.md"] + integrations
        for directory in ["docs", "docs/zh-CN"] {
            pages += ((try? manager.contentsOfDirectory(atPath: root.appending(path: directory).path)) ?? [])
                .filter { $0.hasSuffix(".md") }.map { "\(directory)/\($0)" }
        }
        return pages.filter { ((try? read($0))?.contains("```swift") ?? false) }.sorted()
    }()

    /// Examples not compiled, by their first line: the pages they are on (another page's listing
    /// with the same first line is still checked), and why.
    static let notCompiled: [String: (pages: [String], reason: String)] = [
        "// Package.swift of your service; the URL is this repository's URL (a git URL SwiftPM can clone).":
            (["docs/embedding-exporter.md", "docs/embedding.md"], "a manifest line; scripts/check-consumer.sh builds a package that depends on a tag this way"),
        "// Package.swift of your service; the URL is this repository's URL.":
            (["docs/api-stability.md"], "a manifest line; scripts/check-consumer.sh builds a package that depends on a tag this way"),
        "let fixed = LogTimestamp(seconds: 1_795_315_039, nanoseconds: 123_000_000)":
            (["docs/logging.md"], "shows bare expressions and their values, which compile only with unused-result warnings"),
        "import Logging":
            (["docs/embedding.md"], "needs both integration packages; each compiles its half (Integrations/*/Tests/*/DocSnippets.swift)"),
        "// Package.swift of a service: wpexporter and the published WPMetricsBridge, by version":
            (["Integrations/WPMetricsBridge/README.md"], "manifest lines; scripts/check-consumer.sh builds scripts/consumer-integrations, which depends on them this way"),
        "// Package.swift of your service: wpexporter and its integrations, each by URL and version.":
            (["docs/embedding.md"], "manifest lines; scripts/check-consumer.sh builds scripts/consumer-integrations, which depends on them this way"),
        "public protocol FrontEnd: Sendable {":
            (["docs/front-ends.md"], "the protocol's requirements as WPFrontEnd declares them, shown rather than used"),
        "static func frontEndFactories(listeners: Listeners) -> [FrontEndFactory<C>] {":
            (["docs/front-ends.md"], "an excerpt of the exporter's own composition (package code), shown rather than used"),
        "let client = HTTPClient(configuration: .init(userAgent: \"my-service/1.0\"))":
            (["docs/http-client.md"], "WPHTTPClient is `package` (no product); WPHTTPClientTests compile the same calls"),
        "let loop = InMemoryLoop(driver: HTTPConnectionDriver(configuration: settings, handler: handler, observer: nil, logger: logger))":
            (["docs/testing.md"], "WPServerTesting is the package's own test support, not a product; its tests compile the same calls"),
    ]

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appending(path: path), encoding: .utf8)
    }

    static func compiledFiles() throws -> [(path: String, lines: [String])] {
        var paths = try FileManager.default.contentsOfDirectory(atPath: root.appending(path: "Examples/DocSnippets").path)
            .filter { $0.hasSuffix(".swift") }.map { "Examples/DocSnippets/\($0)" }
        paths += ["Integrations/WPMetricsBridge/Tests/WPMetricsBridgeTests/DocSnippets.swift",
                  "Integrations/WPLogHandler/Tests/WPLogHandlerTests/DocSnippets.swift",
                  "Integrations/WPServiceLifecycle/Tests/WPServiceLifecycleTests/DocSnippets.swift",
                  "Integrations/WPHummingbird/Tests/WPHummingbirdTests/DocSnippets.swift",
                  "Examples/FrontEndPlugin/Sources/UPSModeLog/UPSModeLog.swift",
                  "Examples/FrontEndPlugin/Tests/UPSModeLogTests/UPSModeLogTests.swift",
                  "Tests/WPExporterTestingTests/ExporterTestHarnessTests.swift"]
        return try paths.map { ($0, trimmedLines(try read($0))) }
    }

    static func trimmedLines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The ```swift blocks of a doc: the line each starts on, and its trimmed lines.
    static func examples(_ text: String) -> [(line: Int, lines: [String])] {
        var examples: [(line: Int, lines: [String])] = []
        var current: (line: Int, lines: [String])?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if current == nil, line.hasPrefix("```swift") {
                current = (number + 1, [])
            } else if let open = current, line.hasPrefix("```") {
                examples.append((open.line, trimmedLines(open.lines.joined(separator: "\n"))))
                current = nil
            } else {
                current?.lines.append(String(line))
            }
        }
        return examples
    }

    /// Whether `needle` appears in `haystack` in order, other lines allowed in between.
    static func isSubsequence(_ needle: [String], of haystack: [String]) -> Bool {
        var remaining = needle[...]
        for line in haystack where line == remaining.first { remaining = remaining.dropFirst() }
        return remaining.isEmpty
    }

    @Test(arguments: docs) func everyExampleIsCompiledAsWritten(doc: String) throws {
        let files = try Self.compiledFiles()
        let examples = Self.examples(try Self.read(doc))
        #expect(!examples.isEmpty)
        for example in examples {
            guard let first = example.lines.first, Self.notCompiled[first]?.pages.contains(doc) != true else { continue }
            let compiled = files.contains { Self.isSubsequence(example.lines, of: $0.lines) }
            #expect(compiled, "\(doc):\(example.line): this example is in no compiled file (Examples/DocSnippets, Integrations/*/Tests/*/DocSnippets.swift…) or differs; first line: \(first)")
        }
    }

    @Test func everyPageWithAListingIsRead() {
        #expect(Self.docs.contains("docs/embedding.md"))
        #expect(Self.docs.contains("docs/embedding-exporter.md"))
        #expect(Self.docs.contains("Integrations/WPLogHandler/README.md"), "an integration's README")
        #expect(!Self.docs.contains("docs/running.md"), "a page without a Swift listing")
    }

    @Test func theMatcherCatchesAChangedLine() {
        let compiled = ["func f() {", "let a = 1", "print(a)", "}"]
        #expect(Self.isSubsequence(["let a = 1", "print(a)"], of: compiled))
        #expect(!Self.isSubsequence(["let a = 2", "print(a)"], of: compiled))
        #expect(!Self.isSubsequence(["print(a)", "let a = 1"], of: compiled))
        #expect(Self.examples("x\n```swift\n  let a = 1\n\n```\n```text\nno\n```\n").map(\.lines) == [["let a = 1"]])
    }
}
