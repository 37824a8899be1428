/// Keys, inline values, quoted scalars, flow sequences and flow mappings: everything read within one line.
extension BlockParser {
    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// The index of the `:` that makes this line a `key: value` entry, or nil.
    func findMappingColon(_ line: SourceLine) throws(YAMLError) -> Int? {
        let scalars = line.scalars
        var at = line.indent
        if scalars[at] == "\"" || scalars[at] == "'" {
            at = try parseQuoted(line, at: at).end
            while at < scalars.count, Self.isBlank(scalars[at]) { at += 1 }
            let isColon = at < scalars.count && scalars[at] == ":"
                && (at + 1 == scalars.count || Self.isBlank(scalars[at + 1]))
            return isColon ? at : nil
        }
        if scalars[at] == "[" || scalars[at] == "{" { return nil }
        while at < scalars.count {
            if scalars[at] == "#", at > line.indent, Self.isBlank(scalars[at - 1]) { return nil }
            if scalars[at] == ":", at + 1 == scalars.count || Self.isBlank(scalars[at + 1]) { return at }
            at += 1
        }
        return nil
    }

    /// Reads the key of a `key: value` line; returns the key and the colon's index.
    func parseKey(_ line: SourceLine) throws(YAMLError) -> (String, Int) {
        let scalars = line.scalars
        let start = line.indent
        try rejectIndicator(line, at: start, context: "keys")
        guard let colon = try findMappingColon(line) else {
            throw error(line, column: start, "expected 'key: value' (a colon followed by a space)")
        }
        let key: String
        if scalars[start] == "\"" || scalars[start] == "'" {
            key = try parseQuoted(line, at: start).text
        } else {
            var end = colon
            while end > start, Self.isBlank(scalars[end - 1]) { end -= 1 }
            key = String(String.UnicodeScalarView(scalars[start..<end]))
        }
        if key.isEmpty { throw error(line, column: start, "empty key") }
        return (key, colon)
    }

    /// Rejects the YAML indicators outside the subset, naming what they are.
    func rejectIndicator(_ line: SourceLine, at column: Int, context: String) throws(YAMLError) {
        let scalar = line.scalars[column]
        let next: Unicode.Scalar? = column + 1 < line.scalars.count ? line.scalars[column + 1] : nil
        switch scalar {
        case "&": throw error(line, column: column, "anchors ('&') are not supported; repeat the value instead")
        case "*": throw error(line, column: column, "aliases ('*') are not supported; repeat the value instead")
        case "!": throw error(line, column: column, "tags ('!') are not supported; write the plain value")
        case "|", ">": throw error(line, column: column, "block scalars ('|', '>') are not supported; quote the value on one line")
        case "{" where context == "keys": throw error(line, column: column, "flow mappings cannot be keys")
        case "@", "`", "%", ",":
            throw error(line, column: column, "'\(scalar)' cannot start a plain value; quote the value")
        case "[" where context == "keys":
            throw error(line, column: column, "flow sequences cannot be keys")
        case "-" where next == nil || next == " ":
            if context != "keys" {
                throw error(line, column: column, "a sequence item cannot start on the same line as its key; put '- item' on the next line")
            }
        case "?" where next == nil || next == " ":
            throw error(line, column: column, "complex keys ('? ') are not supported")
        case ":" where next == nil || next == " ":
            throw error(line, column: column, "missing key before ':'")
        default: break
        }
    }

    /// Reads the value that starts at `column` and must fill the rest of the line.
    func parseInlineValue(_ line: SourceLine, from column: Int) throws(YAMLError) -> YAMLNode {
        let scalars = line.scalars
        let position = SourcePosition(line: line.number, column: column + 1)
        let node: YAMLNode
        let end: Int
        switch scalars[column] {
        case "[":
            (node, end) = try parseFlowSequence(line, at: column)
        case "{":
            (node, end) = try parseFlowMapping(line, at: column)
        case "\"", "'":
            let quoted = try parseQuoted(line, at: column)
            node = YAMLNode(kind: .scalar(YAMLScalar(text: quoted.text, style: quoted.style)), position: position)
            end = quoted.end
        default:
            try rejectIndicator(line, at: column, context: "values")
            var stop = column
            while stop < scalars.count {
                if scalars[stop] == "#", Self.isBlank(scalars[stop - 1]) { break }
                if scalars[stop] == ":", stop + 1 == scalars.count || Self.isBlank(scalars[stop + 1]) {
                    throw error(line, column: stop,
                                "a ':' followed by a space is not allowed inside a plain value; quote the value")
                }
                stop += 1
            }
            var trimmed = stop
            while trimmed > column, Self.isBlank(scalars[trimmed - 1]) { trimmed -= 1 }
            let text = String(String.UnicodeScalarView(scalars[column..<trimmed]))
            return YAMLNode(kind: .scalar(YAMLScalar(text: text, style: .plain)), position: position)
        }
        if !Self.restIsEmpty(scalars, from: end) {
            var at = end
            while at < scalars.count, Self.isBlank(scalars[at]) { at += 1 }
            throw error(line, column: at, "unexpected text after the value; add a '#' before comments")
        }
        return node
    }

    /// Reads a quoted scalar that opens at `column`; returns its text and the index after it.
    func parseQuoted(_ line: SourceLine, at column: Int) throws(YAMLError)
        -> (text: String, style: YAMLScalar.Style, end: Int) {
        let scalars = line.scalars
        let quote = scalars[column]
        var text = String.UnicodeScalarView()
        var at = column + 1
        while at < scalars.count {
            let scalar = scalars[at]
            if quote == "'" {
                if scalar == "'" {
                    if at + 1 < scalars.count, scalars[at + 1] == "'" {
                        text.append("'")
                        at += 2
                        continue
                    }
                    return (String(text), .singleQuoted, at + 1)
                }
            } else if scalar == "\"" {
                return (String(text), .doubleQuoted, at + 1)
            } else if scalar == "\\" {
                let (decoded, next) = try decodeEscape(line, at: at)
                text.append(decoded)
                at = next
                continue
            }
            text.append(scalar)
            at += 1
        }
        let kind = quote == "'" ? "single" : "double"
        throw error(line, column: column,
                    "unterminated \(kind)-quoted string; quoted values must close on the same line")
    }

    /// Decodes the escape sequence whose backslash is at `column`.
    private func decodeEscape(_ line: SourceLine, at column: Int) throws(YAMLError) -> (Unicode.Scalar, Int) {
        let scalars = line.scalars
        guard column + 1 < scalars.count else {
            throw error(line, column: column, "unterminated double-quoted string; quoted values must close on the same line")
        }
        let simple: [Unicode.Scalar: Unicode.Scalar] = [
            "0": "\0", "a": "\u{07}", "b": "\u{08}", "t": "\t", "\t": "\t", "n": "\n", "v": "\u{0B}",
            "f": "\u{0C}", "r": "\r", "e": "\u{1B}", " ": " ", "\"": "\"", "/": "/", "\\": "\\",
            "N": "\u{85}", "_": "\u{A0}", "L": "\u{2028}", "P": "\u{2029}",
        ]
        let letter = scalars[column + 1]
        if let decoded = simple[letter] { return (decoded, column + 2) }
        let width: Int
        switch letter {
        case "x": width = 2
        case "u": width = 4
        case "U": width = 8
        default:
            throw error(line, column: column, "unknown escape sequence '\\\(letter)' in double-quoted string")
        }
        let start = column + 2
        guard start + width <= scalars.count,
              let code = UInt32(String(String.UnicodeScalarView(scalars[start..<start + width])), radix: 16),
              let decoded = Unicode.Scalar(code) else {
            throw error(line, column: column, "invalid escape '\\\(letter)': expected \(width) hexadecimal digits of a valid code point")
        }
        return (decoded, start + width)
    }

    /// Reads a one-line flow sequence `[a, "b", [c]]` opening at `column`, nested `level`
    /// sequences deep inside the current block.
    func parseFlowSequence(_ line: SourceLine, at column: Int, level: Int = 1) throws(YAMLError) -> (YAMLNode, Int) {
        try checkDepth(depth + level, line, column: column)
        let scalars = line.scalars
        var items: [YAMLNode] = []
        var at = column + 1
        while true {
            while at < scalars.count, Self.isBlank(scalars[at]) { at += 1 }
            guard at < scalars.count, scalars[at] != "#" else {
                throw error(line, column: column, "unterminated flow sequence; '[' must be closed by ']' on the same line")
            }
            if scalars[at] == "]" { break }
            if scalars[at] == "," { throw error(line, column: at, "empty entry in flow sequence") }
            items.append(try parseFlowValue(line, at: &at, level: level, closer: "]"))
            while at < scalars.count, Self.isBlank(scalars[at]) { at += 1 }
            guard at < scalars.count, scalars[at] != "#" else {
                throw error(line, column: column, "unterminated flow sequence; '[' must be closed by ']' on the same line")
            }
            if scalars[at] == "]" { break }
            guard scalars[at] == "," else {
                throw error(line, column: at, "expected ',' or ']' in flow sequence")
            }
            at += 1
        }
        let node = YAMLNode(kind: .sequence(items), position: SourcePosition(line: line.number, column: column + 1))
        return (node, at + 1)
    }

    /// Reads a one-line flow mapping `{a: 1, "b": [x, y], c: {d: e}}` opening at `column`,
    /// nested `level` collections deep inside the current block: keys plain or quoted, each once.
    func parseFlowMapping(_ line: SourceLine, at column: Int, level: Int = 1) throws(YAMLError) -> (YAMLNode, Int) {
        try checkDepth(depth + level, line, column: column)
        let scalars = line.scalars
        var entries: [YAMLNode.Entry] = []
        var at = column + 1
        func unterminated() -> YAMLError {
            error(line, column: column, "unterminated flow mapping; '{' must be closed by '}' on the same line")
        }
        while true {
            while at < scalars.count, Self.isBlank(scalars[at]) { at += 1 }
            guard at < scalars.count, scalars[at] != "#" else { throw unterminated() }
            if scalars[at] == "}" { break }
            if scalars[at] == "," { throw error(line, column: at, "empty entry in flow mapping") }
            // The key: quoted, or plain up to its ':' followed by a space (or by ',' or '}').
            let keyPosition = SourcePosition(line: line.number, column: at + 1)
            let key: String
            if scalars[at] == "\"" || scalars[at] == "'" {
                let quoted = try parseQuoted(line, at: at)
                key = quoted.text
                at = quoted.end
                while at < scalars.count, Self.isBlank(scalars[at]) { at += 1 }
            } else {
                try rejectIndicator(line, at: at, context: "keys")
                if scalars[at] == "[" { throw error(line, column: at, "flow sequences cannot be keys") }
                let start = at
                while at < scalars.count, !(scalars[at] == ":" && (at + 1 == scalars.count || Self.isBlank(scalars[at + 1])
                                                                     || scalars[at + 1] == "," || scalars[at + 1] == "}")) {
                    if scalars[at] == "," || scalars[at] == "}" || scalars[at] == "{" || scalars[at] == "[" || scalars[at] == "]" {
                        throw error(line, column: start, "expected 'key: value' in flow mapping")
                    }
                    at += 1
                }
                var end = at
                while end > start, Self.isBlank(scalars[end - 1]) { end -= 1 }
                key = String(String.UnicodeScalarView(scalars[start..<end]))
            }
            guard at < scalars.count, scalars[at] == ":" else {
                throw at < scalars.count ? error(line, column: at, "expected ':' after the key in flow mapping") : unterminated()
            }
            if key.isEmpty { throw error(line, column: keyPosition.column - 1, "empty key") }
            if let first = entries.first(where: { $0.key == key }) {
                throw error(line, column: keyPosition.column - 1,
                            "duplicate key '\(key)' (first defined on line \(first.keyPosition.line), column \(first.keyPosition.column))")
            }
            at += 1
            while at < scalars.count, Self.isBlank(scalars[at]) { at += 1 }
            guard at < scalars.count, scalars[at] != "#" else { throw unterminated() }
            let value: YAMLNode
            if scalars[at] == "," || scalars[at] == "}" {
                value = YAMLNode(kind: .scalar(YAMLScalar(text: "", style: .plain)), position: SourcePosition(line: line.number, column: at + 1))
            } else {
                value = try parseFlowValue(line, at: &at, level: level, closer: "}")
            }
            entries.append(YAMLNode.Entry(key: key, keyPosition: keyPosition, value: value))
            while at < scalars.count, Self.isBlank(scalars[at]) { at += 1 }
            guard at < scalars.count, scalars[at] != "#" else { throw unterminated() }
            if scalars[at] == "}" { break }
            guard scalars[at] == "," else { throw error(line, column: at, "expected ',' or '}' in flow mapping") }
            at += 1
        }
        let node = YAMLNode(kind: .mapping(entries), position: SourcePosition(line: line.number, column: column + 1))
        return (node, at + 1)
    }

    /// Reads one value of a flow collection at `at` (a nested sequence or mapping, a quoted or a
    /// plain scalar) and moves `at` past it; `closer` ends the collection (`]` or `}`).
    private func parseFlowValue(_ line: SourceLine, at: inout Int, level: Int, closer: Unicode.Scalar) throws(YAMLError) -> YAMLNode {
        let scalars = line.scalars
        let position = SourcePosition(line: line.number, column: at + 1)
        switch scalars[at] {
        case "[":
            let (nested, end) = try parseFlowSequence(line, at: at, level: level + 1)
            at = end
            return nested
        case "{":
            let (nested, end) = try parseFlowMapping(line, at: at, level: level + 1)
            at = end
            return nested
        case "\"", "'":
            let quoted = try parseQuoted(line, at: at)
            at = quoted.end
            return YAMLNode(kind: .scalar(YAMLScalar(text: quoted.text, style: quoted.style)), position: position)
        default:
            try rejectIndicator(line, at: at, context: "values")
            let collection = closer == "]" ? "flow sequence" : "flow mapping"
            let start = at
            while at < scalars.count, scalars[at] != ",", scalars[at] != closer {
                if scalars[at] == "#", Self.isBlank(scalars[at - 1]) { break }
                if "[]{}".unicodeScalars.contains(scalars[at]) {
                    throw error(line, column: at, "'\(scalars[at])' inside a plain value in a \(collection); quote the value")
                }
                if scalars[at] == ":", at + 1 < scalars.count, Self.isBlank(scalars[at + 1]) {
                    throw error(line, column: at, closer == "]" ? "mappings inside flow sequences are not supported; write {key: value}"
                                : "a ':' followed by a space is not allowed inside a plain value; quote the value")
                }
                at += 1
            }
            var end = at
            while end > start, Self.isBlank(scalars[end - 1]) { end -= 1 }
            let text = String(String.UnicodeScalarView(scalars[start..<end]))
            return YAMLNode(kind: .scalar(YAMLScalar(text: text, style: .plain)), position: position)
        }
    }
}
