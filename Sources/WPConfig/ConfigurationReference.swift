import WPText
import WPRuntime

/// The configuration reference generated from a ``ConfigSchema`` (the exporter's keys and the
/// sections its front ends declare).
///
/// `docs/configuration.md` embeds ``markdown()`` between two marker comments; a test
/// compares them, so the documentation cannot drift from the code.
package enum ConfigurationReference {
    /// The line that starts the generated part of the documentation.
    public static let beginMarker = "<!-- BEGIN GENERATED KEY TABLE: edit ConfigKey+Table.swift, not this table -->"
    /// The line that ends the generated part.
    public static let endMarker = "<!-- END GENERATED KEY TABLE -->"

    /// The column titles of the English tables.
    public static let englishColumns = ["key", "type", "default", "environment", "flag", "description"]

    /// One Markdown table per section of `schema`: key, type, default, environment variables, flags and
    /// description of every key.
    ///
    /// - Parameters:
    ///   - columns: the six column titles (a translated page gives its own).
    ///   - description: the description of a key; ``ConfigKey/summary`` unless a translated page
    ///     gives its own (everything else in the table is the same in every language).
    /// - Returns: Markdown text ending with a newline.
    public static func markdown(_ schema: ConfigSchema = .exporter, columns: [String] = englishColumns,
                                description: (ConfigKey) -> String = \.summary) -> String {
        precondition(columns.count == englishColumns.count, "six column titles")
        var out = ""
        for section in schema.sectionNames {
            out += "### `\(section)`\n\n"
            out += "| " + columns.joined(separator: " | ") + " |\n"
            out += "|---|---|---|---|---|---|\n"
            for key in schema.keys where key.section == section {
                let defaultText = key.defaultValue.map { "`\($0.formatted(as: key.type))`" } ?? "—"
                let environment = ([key.environmentVariable] + key.environmentAliases).map { "`\($0)`" }
                let flags = ([key.flag] + key.flagAliases).map { "`\($0)`" }
                let cells = ["`\(key.name)`", key.type.name.replacingPipes(), defaultText,
                             environment.joined(separator: "<br>"), flags.joined(separator: "<br>"), description(key)]
                out += "| " + cells.joined(separator: " | ") + " |\n"
            }
            // A list's keys are read from the file only.
            for list in schema.sections.filter({ $0.name == section }).flatMap(\.lists) {
                let listKey = ConfigKey(list.name, .string, default: nil, list.summary)
                out += "| " + ["`\(list.name)`", "list of entries", "—", "file only", "file only", description(listKey)]
                    .joined(separator: " | ") + " |\n"
                for entryKey in list.keys {
                    for (name, type) in [(entryKey.name, entryKey.typeName)] + (entryKey.fileKey.map { [($0, "path")] } ?? []) {
                        let key = ConfigKey(list.name + "[]." + name, .string, default: nil,
                                            name == entryKey.name ? entryKey.summary : "File holding `\(entryKey.name)`.")
                        let defaultText = name == entryKey.name ? entryKey.defaultText.map { "`\($0)`" } ?? "—" : "—"
                        out += "| " + ["`\(key.name)`", type.replacingPipes(), defaultText, "file only", "file only", description(key)]
                            .joined(separator: " | ") + " |\n"
                    }
                }
            }
            out += "\n"
        }
        return out
    }
}

extension String {
    /// Escapes `|` for a Markdown table cell.
    fileprivate func replacingPipes() -> String {
        split(separator: "|", omittingEmptySubsequences: false)
            .map { $0.trimmingSpacesAndTabs() }.joined(separator: " \\| ")
    }
}
