import WPRuntime

/// The configuration reference generated from ``ConfigKey/all``.
///
/// `docs/configuration.md` embeds ``markdown()`` between two marker comments; a test
/// compares them, so the documentation cannot drift from the code.
package enum ConfigurationReference {
    /// The line that starts the generated part of the documentation.
    public static let beginMarker = "<!-- BEGIN GENERATED KEY TABLE: edit ConfigKey+Table.swift, not this table -->"
    /// The line that ends the generated part.
    public static let endMarker = "<!-- END GENERATED KEY TABLE -->"

    /// One Markdown table per section: key, type, default, environment variables, flags and
    /// description of every key.
    ///
    /// - Returns: Markdown text ending with a newline.
    public static func markdown() -> String {
        var out = ""
        for section in ConfigKey.sections {
            out += "### `\(section)`\n\n"
            out += "| key | type | default | environment | flag | description |\n"
            out += "|---|---|---|---|---|---|\n"
            for key in ConfigKey.all where key.section == section {
                let defaultText = key.defaultValue.map { "`\($0.formatted(as: key.type))`" } ?? "—"
                let environment = ([key.environmentVariable] + key.environmentAliases).map { "`\($0)`" }
                let flags = ([key.flag] + key.flagAliases).map { "`\($0)`" }
                let cells = ["`\(key.name)`", key.type.name.replacingPipes(), defaultText,
                             environment.joined(separator: "<br>"), flags.joined(separator: "<br>"), key.summary]
                out += "| " + cells.joined(separator: " | ") + " |\n"
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


