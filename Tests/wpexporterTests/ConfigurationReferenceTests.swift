import Foundation
import Testing
import WPTestThreads
@testable import WPConfig
@testable import wpexporter

/// `docs/configuration.md` embeds the generated key table of every key the command-line tool
/// reads (the exporter's and its front ends' sections); this test fails when they differ.
/// Run with `UPDATE_DOCS=1` to rewrite the table in place.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ConfigurationReferenceTests {
    static let docsURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/configuration.md")

    /// `docs/zh-CN/configuration.md`, whose table takes its descriptions from
    /// `docs/zh-CN/configuration-keys.tsv` (`key<TAB>description` lines).
    static let chineseURL = docsURL.deletingLastPathComponent().appendingPathComponent("zh-CN/configuration.md")
    static let chineseDescriptionsURL = docsURL.deletingLastPathComponent().appendingPathComponent("zh-CN/configuration-keys.tsv")
    static let chineseColumns = ["配置项", "类型", "默认值", "环境变量", "命令行参数", "说明"]

    @Test func documentationMatchesTheKeyTable() throws {
        try Self.check(Self.docsURL, generated: ConfigurationReference.markdown(.tool))
    }

    @Test func chineseDocumentationMatchesTheKeyTableWithEveryKeyDescribed() throws {
        let descriptions = try Self.chineseDescriptions()
        let documented = ConfigSchema.tool.keys.map(\.name) + ConfigSchema.tool.listKeyNames
        let known = Set(documented)
        let missing = documented.filter { descriptions[$0] == nil }
        #expect(missing.isEmpty, "docs/zh-CN/configuration-keys.tsv describes no \(missing.joined(separator: ", "))")
        let unknown = descriptions.keys.filter { !known.contains($0) }.sorted()
        #expect(unknown.isEmpty, "docs/zh-CN/configuration-keys.tsv describes keys that do not exist: \(unknown.joined(separator: ", "))")
        try Self.check(Self.chineseURL, generated: ConfigurationReference.markdown(.tool, columns: Self.chineseColumns) {
            descriptions[$0.name] ?? $0.summary
        })
    }

    /// The Chinese descriptions by key; a line that is not `key<TAB>description`, or a key given
    /// twice, fails naming its line.
    static func chineseDescriptions() throws -> [String: String] {
        let text = try String(contentsOf: chineseDescriptionsURL, encoding: .utf8)
        var descriptions: [String: String] = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty && !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            try #require(fields.count == 2 && !fields[0].isEmpty && !fields[1].isEmpty,
                         "configuration-keys.tsv:\(index + 1): expected key<TAB>description")
            #expect(descriptions.updateValue(String(fields[1]), forKey: String(fields[0])) == nil,
                    "configuration-keys.tsv:\(index + 1): \(fields[0]) is described twice")
        }
        return descriptions
    }

    /// Fails when the table between the markers of `url` is not `generated`; with
    /// `UPDATE_DOCS=1`, writes it there instead.
    static func check(_ url: URL, generated: String) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        let begin = try #require(text.range(of: ConfigurationReference.beginMarker + "\n"), "begin marker missing in \(url.path)")
        let end = try #require(text.range(of: ConfigurationReference.endMarker), "end marker missing in \(url.path)")
        if ProcessInfo.processInfo.environment["UPDATE_DOCS"] == "1" {
            let updated = text.replacingCharacters(in: begin.upperBound..<end.lowerBound, with: generated)
            try updated.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(String(text[begin.upperBound..<end.lowerBound]) == generated,
                "\(url.path) is out of date: run UPDATE_DOCS=1 swift test --filter ConfigurationReferenceTests")
    }

    @Test func tableNamesEveryKeyVariableAndFlag() {
        let markdown = ConfigurationReference.markdown(.tool)
        for key in ConfigSchema.tool.keys {
            #expect(markdown.contains("`\(key.name)`"))
            #expect(markdown.contains("`\(key.environmentVariable)`"))
            for flag in [key.flag] + key.flagAliases { #expect(markdown.contains("`\(flag)`")) }
            for variable in key.environmentAliases { #expect(markdown.contains("`\(variable)`")) }
        }
    }

    @Test func keyTableIsConsistent() {
        let names = ConfigSchema.tool.keys.map(\.name)
        #expect(Set(names).count == names.count)
        let flags = ConfigSchema.tool.allFlags
        #expect(Set(flags).count == flags.count)
        let variables = ConfigSchema.tool.keys.flatMap { [$0.environmentVariable] + $0.environmentAliases }
        #expect(Set(variables).count == variables.count)
        for key in ConfigSchema.tool.keys {
            if let value = key.defaultValue {
                #expect(ConfigValue.parse(value.formatted(as: key.type), as: key.type) == .success(value), "\(key.name)")
            }
        }
    }
}
