import Foundation
import Testing
import WPTestThreads
@testable import WPConfig

/// `docs/configuration.md` embeds the generated key table; this test fails when they differ.
/// Run with `UPDATE_DOCS=1` to rewrite the table in place.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ConfigurationReferenceTests {
    static let docsURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/configuration.md")

    @Test func documentationMatchesTheKeyTable() throws {
        let text = try String(contentsOf: Self.docsURL, encoding: .utf8)
        let begin = try #require(text.range(of: ConfigurationReference.beginMarker + "\n"), "begin marker missing")
        let end = try #require(text.range(of: ConfigurationReference.endMarker), "end marker missing")
        let generated = ConfigurationReference.markdown()
        if ProcessInfo.processInfo.environment["UPDATE_DOCS"] == "1" {
            let updated = text.replacingCharacters(in: begin.upperBound..<end.lowerBound, with: generated)
            try updated.write(to: Self.docsURL, atomically: true, encoding: .utf8)
            return
        }
        #expect(String(text[begin.upperBound..<end.lowerBound]) == generated,
                "docs/configuration.md is out of date: run UPDATE_DOCS=1 swift test --filter ConfigurationReferenceTests")
    }

    @Test func tableNamesEveryKeyVariableAndFlag() {
        let markdown = ConfigurationReference.markdown()
        for key in ConfigKey.all {
            #expect(markdown.contains("`\(key.name)`"))
            #expect(markdown.contains("`\(key.environmentVariable)`"))
            for flag in [key.flag] + key.flagAliases { #expect(markdown.contains("`\(flag)`")) }
            for variable in key.environmentAliases { #expect(markdown.contains("`\(variable)`")) }
        }
    }

    @Test func keyTableIsConsistent() {
        let names = ConfigKey.all.map(\.name)
        #expect(Set(names).count == names.count)
        let flags = ConfigKey.allFlags
        #expect(Set(flags).count == flags.count)
        let variables = ConfigKey.all.flatMap { [$0.environmentVariable] + $0.environmentAliases }
        #expect(Set(variables).count == variables.count)
        for key in ConfigKey.all {
            if let value = key.defaultValue {
                #expect(ConfigValue.parse(value.formatted(as: key.type), as: key.type) == .success(value), "\(key.name)")
            }
        }
    }
}
