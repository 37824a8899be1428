/// Escapes text for HTML element content and attribute values: the one escape every page of
/// the exporter uses (the `/` landing page, the status pages).
package enum HTMLEscaping {
    package static func escape(_ text: String) -> String {
        // Most texts need nothing: returned as they are.
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        // By Unicode scalar, not by character: a quote followed by a combining mark is one
        // character, and must still be escaped.
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` escaped and appended to `out`.
    package static func append(_ text: String, to out: inout String) {
        out += escape(text)
    }
}
