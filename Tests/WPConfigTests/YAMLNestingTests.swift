import Testing
import WPTestThreads
@testable import WPConfig

/// Deeply nested documents are refused with a positioned error instead of exhausting the
/// stack (20,000 `- ` or 50,000 `[` crashed `check-config` and `server` with SIGSEGV).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct YAMLNestingTests {
    private static func parseError(_ text: String) -> YAMLError? {
        do {
            _ = try YAMLReader.parse(text, file: "deep.yaml")
            return nil
        } catch {
            return error
        }
    }

    @Test func twentyThousandSequenceMarkersOnOneLine() throws {
        let error = try #require(Self.parseError(String(repeating: "- ", count: 20_000) + "x\n"))
        #expect(error.description == "deep.yaml:1:129: nesting deeper than 64 levels; a configuration file needs far fewer")
    }

    @Test func staircaseOfNestedSequences() throws {
        let text = (0..<20_000).map { String(repeating: " ", count: min($0, 200) * 2) + "-" }.joined(separator: "\n")
        // Whatever the reader thinks of the indentation, it answers with a positioned error.
        let error = try #require(Self.parseError(text))
        #expect(error.position.line >= 1 && error.position.line <= 20_000)
    }

    @Test func fiftyThousandOpeningBrackets() throws {
        let error = try #require(Self.parseError("key: " + String(repeating: "[", count: 50_000) + "\n"))
        #expect(error.description == "deep.yaml:1:69: nesting deeper than 64 levels; a configuration file needs far fewer")
    }

    @Test func nestedMappingsPastTheLimit() throws {
        let text = (0..<100).map { String(repeating: " ", count: $0 * 2) + "k\($0):" }.joined(separator: "\n") + " v\n"
        let error = try #require(Self.parseError(text))
        #expect(error.position.line == 65)
        #expect(error.message.hasPrefix("nesting deeper than 64 levels"))
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let flow = "key: " + String(repeating: "[", count: 63) + "x" + String(repeating: "]", count: 63) + "\n"
        #expect(Self.parseError(flow) == nil)
        let block = (0..<64).map { String(repeating: " ", count: $0 * 2) + "k\($0):" }.joined(separator: "\n") + " v\n"
        #expect(Self.parseError(block) == nil)
    }

    @Test func configurationFileNamesTheProblemPosition() {
        let problems = TestInputs.problems(TestInputs.make(file: String(repeating: "[", count: 50_000) + "\n"))
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("./config.yaml:1:64: nesting deeper than 64 levels") == true, "\(problems)")
    }

    @Test func webConfigurationFileToo() {
        let problems = WebConfigurationTests.problems(String(repeating: "- ", count: 20_000) + "\n")
        #expect(problems == ["/etc/wp/web.yml:1:129: nesting deeper than 64 levels; a configuration file needs far fewer"])
    }
}
