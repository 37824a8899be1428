/// Reads the subset of YAML that configuration files use, and rejects everything else.
///
/// Supported: nested block mappings, block sequences (`- item`, also holding mappings), flow
/// sequences and flow mappings on one line (`[a, "b", 3]`, `{installed: 2024-03-01, life: 4y}`),
/// plain, single-quoted and double-quoted scalars (with the YAML escapes), comments, blank
/// lines, and one optional leading `---`.
///
/// Rejected with a `file:line:column` error rather than guessed at: anchors and aliases,
/// tags, a second document, directives, block scalars (`|`, `>`), flow collections spanning
/// lines, multi-line scalars, tabs in indentation, duplicate keys, inconsistent indentation and
/// unterminated quotes. Nesting (block and flow collections together) is limited to
/// ``maxDepth`` levels, as the JSON scanner limits its input, so a hostile file cannot
/// exhaust the stack.
///
/// ```swift
/// let root = try YAMLReader.parse("server:\n  port: 9090\n", file: "config.yaml")
/// ```
package enum YAMLReader {
    /// The deepest nesting of collections accepted; configuration files need 3.
    public static let maxDepth = 64

    /// Parses one YAML document.
    ///
    /// - Parameters:
    ///   - text: The document's text (UTF-8 decoded; a leading byte-order mark is ignored).
    ///   - file: The name to put in error messages.
    /// - Returns: The root node, or nil when the document holds no content at all.
    /// - Throws: ``YAMLError`` at the first construct outside the supported subset.
    public static func parse(_ text: String, file: String) throws(YAMLError) -> YAMLNode? {
        var parser = try BlockParser(text: text, file: file)
        return try parser.parseDocument()
    }
}

/// One non-blank, non-comment line. `indent` is the 0-based column where content starts;
/// a sequence entry's content is re-read as a line indented at the content's column.
struct SourceLine {
    var number: Int
    var indent: Int
    var scalars: [Unicode.Scalar]
}

struct BlockParser {
    let file: String
    var lines: [SourceLine] = []
    var index = 0
    /// Blocks being parsed (the recursion depth), bounded by ``YAMLReader/maxDepth``.
    var depth = 0

    init(text: String, file: String) throws(YAMLError) {
        self.file = file
        var sawContent = false
        var sawDocumentStart = false
        var raw = Array(text.unicodeScalars)
        if raw.first == "\u{FEFF}" { raw.removeFirst() }
        let rawLines = raw.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, rawLine) in rawLines.enumerated() {
            var scalars = Array(rawLine)
            if scalars.last == "\r" { scalars.removeLast() }
            let number = offset + 1
            var indent = 0
            var tabColumn: Int?
            while indent < scalars.count, scalars[indent] == " " || scalars[indent] == "\t" {
                if scalars[indent] == "\t", tabColumn == nil { tabColumn = indent }
                indent += 1
            }
            if indent == scalars.count || scalars[indent] == "#" { continue }
            if let tabColumn {
                throw YAMLError(file: file, position: SourcePosition(line: number, column: tabColumn + 1),
                                message: "tab character in indentation; indent with spaces only")
            }
            if indent == 0, Self.isMarker(scalars, "-") {
                if sawContent || sawDocumentStart {
                    throw YAMLError(file: file, position: SourcePosition(line: number, column: 1),
                                    message: "multiple YAML documents are not supported; a configuration file holds one document")
                }
                if !Self.restIsEmpty(scalars, from: 3) {
                    throw YAMLError(file: file, position: SourcePosition(line: number, column: 5),
                                    message: "content after '---' is not supported; start it on the next line")
                }
                sawDocumentStart = true
                continue
            }
            if indent == 0, Self.isMarker(scalars, ".") {
                throw YAMLError(file: file, position: SourcePosition(line: number, column: 1),
                                message: "document end marker '...' is not supported")
            }
            if indent == 0, scalars[0] == "%" {
                throw YAMLError(file: file, position: SourcePosition(line: number, column: 1),
                                message: "YAML directives (%YAML, %TAG) are not supported")
            }
            sawContent = true
            lines.append(SourceLine(number: number, indent: indent, scalars: scalars))
        }
    }

    private static func isMarker(_ scalars: [Unicode.Scalar], _ mark: Unicode.Scalar) -> Bool {
        scalars.count >= 3 && scalars[0] == mark && scalars[1] == mark && scalars[2] == mark
            && (scalars.count == 3 || scalars[3] == " " || scalars[3] == "\t")
    }

    static func restIsEmpty(_ scalars: [Unicode.Scalar], from start: Int) -> Bool {
        var index = start
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        return index == scalars.count || scalars[index] == "#"
    }

    func error(_ line: SourceLine, column: Int, _ message: String) -> YAMLError {
        YAMLError(file: file, position: SourcePosition(line: line.number, column: column + 1), message: message)
    }

    var current: SourceLine? { index < lines.count ? lines[index] : nil }

    mutating func parseDocument() throws(YAMLError) -> YAMLNode? {
        guard let first = current else { return nil }
        let root = try parseBlock(first.indent)
        if let extra = current {
            throw error(extra, column: extra.indent,
                        "bad indentation: this line is indented \(extra.indent) spaces but the document starts at \(first.indent)")
        }
        return root
    }

    /// Parses the block (mapping, sequence or single scalar) that starts at the current line.
    mutating func parseBlock(_ indent: Int) throws(YAMLError) -> YAMLNode {
        guard let line = current else {
            return YAMLNode(kind: .scalar(YAMLScalar(text: "", style: .plain)), position: SourcePosition(line: 1, column: 1))
        }
        depth += 1
        defer { depth -= 1 }
        try checkDepth(depth, line, column: indent)
        if isSequenceEntry(line) { return try parseSequence(indent) }
        if try findMappingColon(line) != nil { return try parseMapping(indent) }
        index += 1
        let node = try parseInlineValue(line, from: line.indent)
        if let next = current, next.indent > line.indent {
            throw error(next, column: next.indent,
                        "bad indentation: multi-line scalars are not supported; quote the value on one line")
        }
        return node
    }

    /// Throws when `levels` exceeds ``YAMLReader/maxDepth``.
    func checkDepth(_ levels: Int, _ line: SourceLine, column: Int) throws(YAMLError) {
        guard levels > YAMLReader.maxDepth else { return }
        throw error(line, column: column,
                    "nesting deeper than \(YAMLReader.maxDepth) levels; a configuration file needs far fewer")
    }

    func isSequenceEntry(_ line: SourceLine) -> Bool {
        let scalars = line.scalars
        let at = line.indent
        return scalars[at] == "-" && (at + 1 == scalars.count || scalars[at + 1] == " ")
    }

    mutating func parseSequence(_ indent: Int) throws(YAMLError) -> YAMLNode {
        guard let first = current else { throw YAMLError(file: file, position: SourcePosition(line: 1, column: 1), message: "empty sequence") }
        var items: [YAMLNode] = []
        while let line = current, line.indent >= indent {
            if line.indent > indent {
                throw error(line, column: line.indent,
                            "bad indentation: expected a sequence item at column \(indent + 1)")
            }
            guard isSequenceEntry(line) else { break }
            var contentColumn = line.indent + 1
            while contentColumn < line.scalars.count, line.scalars[contentColumn] == " " { contentColumn += 1 }
            if Self.restIsEmpty(line.scalars, from: contentColumn) {
                index += 1
                if let next = current, next.indent > indent {
                    items.append(try parseBlock(next.indent))
                } else {
                    items.append(YAMLNode(kind: .scalar(YAMLScalar(text: "", style: .plain)),
                                          position: SourcePosition(line: line.number, column: line.indent + 2)))
                }
            } else {
                lines[index].indent = contentColumn
                items.append(try parseBlock(contentColumn))
            }
        }
        return YAMLNode(kind: .sequence(items), position: SourcePosition(line: first.number, column: indent + 1))
    }

    mutating func parseMapping(_ indent: Int) throws(YAMLError) -> YAMLNode {
        guard let first = current else { throw YAMLError(file: file, position: SourcePosition(line: 1, column: 1), message: "empty mapping") }
        var entries: [YAMLNode.Entry] = []
        var seen: [String: Int] = [:]
        while let line = current, line.indent >= indent {
            if line.indent > indent {
                throw error(line, column: line.indent,
                            "bad indentation: expected a key at column \(indent + 1), found one at column \(line.indent + 1)")
            }
            if isSequenceEntry(line) {
                throw error(line, column: line.indent, "expected 'key: value' here, found a sequence item '- '")
            }
            let (key, colon) = try parseKey(line)
            let keyPosition = SourcePosition(line: line.number, column: line.indent + 1)
            if let previous = seen[key] {
                throw error(line, column: line.indent, "duplicate key '\(key)' (first defined on line \(previous))")
            }
            seen[key] = line.number
            index += 1
            var valueColumn = colon + 1
            while valueColumn < line.scalars.count, line.scalars[valueColumn] == " " { valueColumn += 1 }
            let value: YAMLNode
            if Self.restIsEmpty(line.scalars, from: valueColumn) {
                if let next = current, next.indent > indent {
                    value = try parseBlock(next.indent)
                } else if let next = current, next.indent == indent, isSequenceEntry(next) {
                    value = try parseSequence(indent)
                } else {
                    value = YAMLNode(kind: .scalar(YAMLScalar(text: "", style: .plain)),
                                     position: SourcePosition(line: line.number, column: colon + 2))
                }
            } else {
                value = try parseInlineValue(line, from: valueColumn)
                if let next = current, next.indent > indent {
                    throw error(next, column: next.indent,
                                "bad indentation: '\(key)' already has a value on line \(line.number); multi-line values are not supported")
                }
            }
            entries.append(YAMLNode.Entry(key: key, keyPosition: keyPosition, value: value))
        }
        return YAMLNode(kind: .mapping(entries), position: SourcePosition(line: first.number, column: indent + 1))
    }
}
