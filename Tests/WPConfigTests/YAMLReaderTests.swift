import Testing
import WPTestThreads
@testable import WPConfig

/// Parses or fails the test with the error's description.
private func parse(_ text: String) throws -> YAMLNode? {
    try YAMLReader.parse(text, file: "t.yaml")
}

/// The error a document raises, or nil when it parses.
private func failure(_ text: String) -> YAMLError? {
    do {
        _ = try YAMLReader.parse(text, file: "t.yaml")
        return nil
    } catch {
        return error
    }
}

private func scalar(_ node: YAMLNode?, _ path: String...) -> YAMLScalar? {
    var current = node
    for key in path {
        current = current?.entries?.first { $0.key == key }?.value
    }
    return current?.scalar
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct YAMLReaderTests {
    @Test func nestedMappingsWithCommentsAndBlankLines() throws {
        let root = try parse("""
            # exporter
            server:   # the HTTP side

              port: 9090
              host: "0.0.0.0"   # all interfaces
            winpower:
              base_url: https://winpower.example.com:8081/path#frag
              nested:
                deeper: yes
            """)
        #expect(scalar(root, "server", "port")?.resolved == .int(9090))
        #expect(scalar(root, "server", "host") == YAMLScalar(text: "0.0.0.0", style: .doubleQuoted))
        #expect(scalar(root, "winpower", "base_url")?.text == "https://winpower.example.com:8081/path#frag")
        #expect(scalar(root, "winpower", "nested", "deeper")?.resolved == .string("yes"))
        let port = root?.entries?.first?.value.entries?.first
        #expect(port?.keyPosition == SourcePosition(line: 4, column: 3))
        #expect(port?.value.position == SourcePosition(line: 4, column: 9))
    }

    @Test(arguments: [
        ("a: ~", YAMLScalar.Resolved.null), ("a: null", .null), ("a:", .null), ("a: NULL", .null),
        ("a: true", .bool(true)), ("a: False", .bool(false)), ("a: 42", .int(42)), ("a: -7", .int(-7)),
        ("a: 0644", .int(0o644)), ("a: 0o755", .int(0o755)), ("a: 0x1F", .int(31)), ("a: 0", .int(0)),
        ("a: 1.5", .float(1.5)), ("a: -2e3", .float(-2000)), ("a: .5", .float(0.5)),
        ("a: 0689", .string("0689")), ("a: 5s", .string("5s")), ("a: 1m30s", .string("1m30s")),
        ("a: '42'", .string("42")), ("a: \"true\"", .string("true")), ("a: yes", .string("yes")),
    ])
    func scalarResolution(text: String, expected: YAMLScalar.Resolved) throws {
        #expect(scalar(try parse(text), "a")?.resolved == expected)
    }

    @Test func infinityAndNaN() throws {
        let root = try parse("a: .inf\nb: -.inf\nc: .nan\n")
        #expect(scalar(root, "a")?.resolved == .float(.infinity))
        #expect(scalar(root, "b")?.resolved == .float(-.infinity))
        guard case .float(let value)? = scalar(root, "c")?.resolved else { Issue.record("not a float"); return }
        #expect(value.isNaN)
    }

    @Test func quotedScalarsAndEscapes() throws {
        let root = try parse(#"""
            a: 'it''s # not a comment'
            b: "tab\there \"q\" \\ \x41\u00e9\U0001F600 \/"
            c: ""
            d: 'x: y'
            "quoted key": 1
            e: plain 'with' "quotes"
            """#)
        #expect(scalar(root, "a")?.text == "it's # not a comment")
        #expect(scalar(root, "b")?.text == "tab\there \"q\" \\ Aé😀 /")
        #expect(scalar(root, "c") == YAMLScalar(text: "", style: .doubleQuoted))
        #expect(scalar(root, "c")?.isNull == false)
        #expect(scalar(root, "d")?.text == "x: y")
        #expect(scalar(root, "quoted key")?.text == "1")
        #expect(scalar(root, "e")?.text == #"plain 'with' "quotes""#)
    }

    @Test func sequences() throws {
        let root = try parse("""
            flow: [a, 'b c', "d", 3, [x, y], ]
            empty: []
            block:
              - one
              - two # comment
              -
              - key: v
                other: w
            same_indent:
            - p
            - q
            after: 1
            """)
        let flow = root?.entries?.first { $0.key == "flow" }?.value.items
        #expect(flow?.compactMap(\.scalar?.text) == ["a", "b c", "d", "3"])
        #expect(flow?.last?.items?.compactMap(\.scalar?.text) == ["x", "y"])
        #expect(root?.entries?.first { $0.key == "empty" }?.value.items?.isEmpty == true)
        let block = root?.entries?.first { $0.key == "block" }?.value.items
        #expect(block?.count == 4)
        #expect(block?[2].scalar?.isNull == true)
        #expect(block?[3].entries?.map(\.key) == ["key", "other"])
        let same = root?.entries?.first { $0.key == "same_indent" }?.value.items
        #expect(same?.compactMap(\.scalar?.text) == ["p", "q"])
        #expect(scalar(root, "after")?.resolved == .int(1))
    }

    @Test func documentStartCRLFAndByteOrderMark() throws {
        let root = try parse("\u{FEFF}--- # start\r\nserver:\r\n  port: 1\r\n")
        #expect(scalar(root, "server", "port")?.text == "1")
        #expect(try parse("") == nil)
        #expect(try parse("# only a comment\n\n") == nil)
    }

    @Test(arguments: [
        ("a: &anchor 1", 1, 4, "anchors"),
        ("a: 1\nb: *anchor", 2, 4, "aliases"),
        ("a: !!str 1", 1, 4, "tags"),
        ("a: 1\n---\nb: 2", 2, 1, "multiple YAML documents"),
        ("--- \n---\n", 2, 1, "multiple YAML documents"),
        ("a:\n\tb: 1", 2, 1, "tab character in indentation"),
        ("a:\n  \tb: 1", 2, 3, "tab character in indentation"),
        ("a: 1\nb: 2\na: 3", 3, 1, "duplicate key 'a' (first defined on line 1)"),
        ("a:\n    b: 1\n  c: 2", 3, 3, "bad indentation"),
        ("a: 1\n  b: 2", 2, 3, "bad indentation"),
        ("a:\n  b: 1\n   c: 2", 3, 4, "bad indentation"),
        ("  a: 1\nb: 2", 2, 1, "bad indentation"),
        ("a: 'open", 1, 4, "unterminated single-quoted string"),
        ("a: \"open\nb: 1", 1, 4, "unterminated double-quoted string"),
        ("a: \"bad \\q\"", 1, 9, "unknown escape sequence"),
        ("a: \"\\u12\"", 1, 5, "expected 4 hexadecimal digits"),
        ("a: {b: 1", 1, 4, "unterminated flow mapping"),
        ("a: {b: 1, b: 2}", 1, 11, "duplicate key 'b' (first defined on line 1, column 5)"),
        ("a: {b 1}", 1, 5, "expected 'key: value' in flow mapping"),
        ("a: {b: 1,, c: 2}", 1, 10, "empty entry in flow mapping"),
        ("a: {b: 1 c: 2}", 1, 11, "':' followed by a space"),
        ("a: {b: x{y}", 1, 9, "inside a plain value in a flow mapping"),
        ("a: {[b]: 1}", 1, 5, "flow sequences cannot be keys"),
        ("a: |\n  text", 1, 4, "block scalars"),
        ("a: >\n  text", 1, 4, "block scalars"),
        ("a: [1, 2", 1, 4, "unterminated flow sequence"),
        ("a: [1,, 2]", 1, 7, "empty entry"),
        ("a: [b: 1]", 1, 6, "mappings inside flow sequences"),
        ("a: b: c", 1, 5, "':' followed by a space"),
        ("a: \"x\" y", 1, 8, "unexpected text after the value"),
        ("%YAML 1.2\n---\na: 1", 1, 1, "directives"),
        ("a: 1\n...", 2, 1, "document end marker"),
        ("just text\n  more", 2, 3, "multi-line scalars"),
        ("a: 1\njust text", 2, 1, "expected 'key: value'"),
        ("a:\n  - x\n  y: 1", 3, 3, "bad indentation"),
        ("a: - x", 1, 4, "sequence item cannot start"),
        ("? complex\n: value", 1, 1, "complex keys"),
        ("a: @at", 1, 4, "cannot start a plain value"),
        ("--- a: 1", 1, 5, "content after '---'"),
    ])
    func rejectionsCarryLineAndColumn(text: String, line: Int, column: Int, message: String) {
        let error = failure(text)
        #expect(error?.position == SourcePosition(line: line, column: column), "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("t.yaml:\(line):\(column): ") == true)
    }

    @Test func flowMappingsOnOneLineReadAsBlockMappingsWouldWithTheirPositions() throws {
        let root = try parse("battery: {installed: 2024-03-01, \"life\": '4y', tags: [a, b], more: {x: 1}, none: }  # comment\n"
                             + "list: [{a: 1}, {}]\n")
        #expect(scalar(root, "battery", "installed")?.text == "2024-03-01")
        #expect(scalar(root, "battery", "life")?.text == "4y")
        #expect(scalar(root, "battery", "more", "x")?.text == "1")
        #expect(scalar(root, "battery", "none")?.isNull == true)
        let entries = try #require(root?.entries?.first?.value.entries)
        #expect(entries.map { $0.key } == ["installed", "life", "tags", "more", "none"])
        #expect(entries[0].keyPosition == SourcePosition(line: 1, column: 11))
        #expect(entries[0].value.position == SourcePosition(line: 1, column: 22))
        #expect(entries[2].value.items?.count == 2)
        #expect(root?.entries?.last?.value.items?.first?.entries?.first?.key == "a")
        #expect(root?.entries?.last?.value.items?.last?.entries?.isEmpty == true)
    }

    @Test func tabsInsideValuesAndAfterContentAreFine() throws {
        let root = try parse("a: x\ty\t# comment\n")
        #expect(scalar(root, "a")?.text == "x\ty")
    }

    @Test func colonWithoutSpaceStaysInsideAPlainValue() throws {
        let root = try parse("url: http://h:8080/x\ntime: 12:30\n")
        #expect(scalar(root, "url")?.text == "http://h:8080/x")
        #expect(scalar(root, "time")?.text == "12:30")
    }
}
