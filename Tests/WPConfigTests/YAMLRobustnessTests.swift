import Testing
import WPTestThreads
@testable import WPConfig

/// Mutated documents must either parse or fail with a positioned error: never crash, never
/// report a position outside the document.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct YAMLRobustnessTests {
    static let document = """
        --- # config
        server:
          port: 9090
          host: "0.0.0.0"  # all
        winpower:
          base_url: 'https://h.example:8081'
          password: "p\\"w\\u00e9"
          list: [a, 'b', "c", [d]]
          block:
            - x
            - k: v
              j: w
        """

    static func check(_ text: String, load: Bool = false) {
        do {
            _ = try YAMLReader.parse(text, file: "m.yaml")
        } catch {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(error.position.line >= 1 && error.position.line <= lines.count, "\(error) in \(text.debugDescription)")
            #expect(error.position.column >= 1, "\(error)")
        }
        if load { _ = TestInputs.problems(TestInputs.make(file: text)) }
    }

    @Test func everyTruncationAndDeletion() {
        let scalars = Array(Self.document.unicodeScalars)
        for cut in 0...scalars.count {
            Self.check(String(String.UnicodeScalarView(scalars[0..<cut])), load: true)
        }
        for index in scalars.indices {
            var copy = scalars
            copy.remove(at: index)
            Self.check(String(String.UnicodeScalarView(copy)))
        }
    }

    @Test(arguments: [":", "-", "'", "\"", "[", "]", "#", "\t", " ", "\n", "&", "!", "\\", "{", ",", "?", "|"])
    func everyInsertion(of inserted: String) {
        let scalars = Array(Self.document.unicodeScalars)
        for index in 0...scalars.count {
            var copy = scalars
            copy.insert(contentsOf: inserted.unicodeScalars, at: index)
            Self.check(String(String.UnicodeScalarView(copy)))
        }
    }
}
