package import WPTime
import WPText
package import WPHistory
import WPLogging
import WPRuntime

/// The language of a receiver's messages.
package enum NotificationLanguage: String, Sendable, CaseIterable {
    case english = "en"
    case chinese = "zh-CN"
}

/// One event of the journal as a receiver is told it: the event, the name the UPS goes by
/// (its alias, else its model, else its id: as the status pages call it) and its site.
package struct NotificationEvent: Sendable, Equatable {
    package var event: HistoryEvent
    /// The UPS's name; `nil` for a server's or the exporter's event.
    package var ups: String?
    /// The `site` label of the UPS's server, if it has one.
    package var site: String?

    package init(_ event: HistoryEvent, ups: String? = nil, site: String? = nil) {
        self.event = event
        self.ups = ups
        self.site = site
    }
}

/// What a message says, before a receiver's format: a title and its lines (label, value),
/// each value as received (``NotificationMessage/markdown`` escapes them).
package struct NotificationMessage: Sendable, Equatable {
    package var title: String
    package var lines: [(label: String, value: String)]
    /// A word put before the title as configured, not escaped (a robot's keyword rule looks for
    /// it as written; it comes from the configuration, not from WinPower).
    package var keyword = ""

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.title == rhs.title && lhs.keyword == rhs.keyword
            && lhs.lines.map(\.label) == rhs.lines.map(\.label) && lhs.lines.map(\.value) == rhs.lines.map(\.value)
    }

    /// The title escaped (``escaped(_:)``), after the keyword as written.
    package var escapedTitle: String { (keyword.isEmpty ? "" : keyword + " ") + Self.escaped(title) }

    /// The title after the keyword, neither escaped.
    package var keyworded: String { (keyword.isEmpty ? "" : keyword + " ") + title }

    /// The message of `notification` in `language`, its time local to `zone` with the offset
    /// (`2026-11-27 16:40:05 UTC+08:00`).
    package init(_ notification: NotificationEvent, language: NotificationLanguage, zone: TimeZoneRules) {
        let event = notification.event
        let chinese = language == .chinese
        let kind = chinese ? event.kind.chinese : event.kind.english
        let subject = notification.ups ?? (event.server.isEmpty ? "WinPower" : event.server)
        title = chinese ? "\(subject) \(kind)" : "\(subject): \(kind)"
        var lines: [(label: String, value: String)] = [(chinese ? "事件" : "Event", kind)]
        if let ups = notification.ups {
            lines.append(("UPS", event.device.map { "\(ups) (\($0))" } ?? ups))
        }
        if !event.server.isEmpty { lines.append((chinese ? "服务器" : "Server", event.server)) }
        if let site = notification.site, !site.isEmpty { lines.append((chinese ? "站点" : "Site", site)) }
        lines.append((chinese ? "时间" : "Time", LogTimestamp.localText(event.time, zone)))
        if let code = event.code, !code.isEmpty { lines.append((chinese ? "代码" : "Code", code)) }
        if !event.detail.isEmpty { lines.append((chinese ? "详情" : "Detail", event.detail)) }
        if event.atStart {
            lines.append((chinese ? "说明" : "Note", chinese ? "导出器启动时读到" : "seen when the exporter started"))
        }
        self.lines = lines
    }

    package init(title: String, lines: [(label: String, value: String)]) {
        self.title = title
        self.lines = lines
    }

    /// The message as markdown for the chat robots: the title bold, a line per value, every
    /// value and the title escaped (``escaped(_:)``): an alias cannot add a link, an image, a
    /// mention or a heading.
    package var markdown: String {
        var text = "**\(escapedTitle)**"
        for line in lines { text += "\n\n\(Self.escaped(line.label)): \(Self.escaped(line.value))" }
        return text
    }

    /// The message as plain text: the title, then a line per value.
    package var plain: String {
        ([keyworded] + lines.map { "\($0.label): \($0.value)" }).map(Self.oneLine).joined(separator: "\n")
    }

    /// `text` on one line (``oneLine(_:)``), safe inside the robots' markdown: the characters
    /// their markdown reads as syntax inside a line (`[ ]` of links and images, `* _ ~ `` ` ``
    /// of emphasis and code, `|` of tables, `< >` of tags such as WeCom's `<font>`, `@` of
    /// mentions) become their full-width forms, which read the same and are no syntax in any
    /// of them. (Backslash escapes are not used: not every robot honours them, and those that
    /// do not would show the backslashes.)
    package static func escaped(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in oneLine(text).unicodeScalars {
            switch scalar {
            case "[", "]", "<", ">", "@", "*", "_", "`", "~", "|":
                out.append(Unicode.Scalar(scalar.value - 0x21 + 0xFF01) ?? scalar)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` on one line (``DisplayText/sanitized(_:)``: controls, line feeds and direction
    /// overrides shown as U+FFFD, as are the Unicode line and paragraph separators), never
    /// longer than 1,000 characters.
    static func oneLine(_ text: String) -> String {
        var out = ""
        for scalar in DisplayText.sanitized(text).unicodeScalars {
            out.unicodeScalars.append(scalar == "\u{2028}" || scalar == "\u{2029}" ? DisplayText.replacement : scalar)
        }
        return out.count > 1_000 ? String(out.prefix(999)) + "…" : out
    }
}
