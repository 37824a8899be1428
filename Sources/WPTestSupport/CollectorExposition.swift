import Foundation

/// A parsed text-format (0.0.4) exposition, for assertions on collector and `/metrics` output.
///
/// Deliberately small: it understands what the exporter's encoder writes (one sample per line,
/// quoted label values with `\\`, `\"` and `\n` escapes) and nothing more.
///
/// ```swift
/// let exposition = try CollectorExposition(text: collector.snapshot.text)
/// #expect(exposition.value("winpower_device_load_total_watts", ["device_id": id]) == 195)
/// ```
package struct CollectorExposition: Sendable {
    /// One sample line.
    package struct Line: Sendable, Equatable {
        package var name: String
        package var labels: [String: String]
        package var value: Double
    }

    /// A parse failure: the 1-based line number and what was wrong.
    package struct ParseError: Error, CustomStringConvertible {
        package var line: Int
        package var reason: String
        package var description: String { "line \(line): \(reason)" }
    }

    /// Every sample, in order.
    package var lines: [Line] = []
    /// `# HELP` text by family name.
    package var help: [String: String] = [:]
    /// `# TYPE` by family name.
    package var types: [String: String] = [:]
    /// Family names in the order their `# TYPE` appeared.
    package var familyOrder: [String] = []

    /// Parses `text`.
    ///
    /// - Throws: ``ParseError`` naming the first malformed line.
    package init(text: [UInt8]) throws {
        let string = String(decoding: text, as: UTF8.self)
        for (offset, raw) in string.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = Substring(raw)
            if line.isEmpty { continue }
            if line.hasPrefix("# HELP ") {
                let rest = line.dropFirst(7)
                let name = rest.prefix { $0 != " " }
                help[String(name)] = String(rest.dropFirst(name.count + 1))
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2 else { throw ParseError(line: offset + 1, reason: "bad TYPE line") }
                types[String(parts[0])] = String(parts[1])
                familyOrder.append(String(parts[0]))
            } else if line.hasPrefix("#") {
                continue
            } else {
                lines.append(try Self.parseSample(line, number: offset + 1))
            }
        }
    }

    /// Samples named `name` whose labels include every pair of `labels`.
    package func samples(_ name: String, _ labels: [String: String] = [:]) -> [Line] {
        lines.filter { line in line.name == name && labels.allSatisfy { line.labels[$0.key] == $0.value } }
    }

    /// The value of the one sample matching, or `nil` when there is none (or several).
    package func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples(name, labels)
        return matching.count == 1 ? matching[0].value : nil
    }

    private static func parseSample(_ line: Substring, number: Int) throws -> Line {
        var index = line.startIndex
        while index < line.endIndex, line[index] != "{", line[index] != " " { index = line.index(after: index) }
        let name = String(line[line.startIndex..<index])
        var labels: [String: String] = [:]
        if index < line.endIndex, line[index] == "{" {
            index = line.index(after: index)
            while index < line.endIndex, line[index] != "}" {
                let keyStart = index
                while index < line.endIndex, line[index] != "=" { index = line.index(after: index) }
                let key = String(line[keyStart..<index])
                index = line.index(index, offsetBy: 2, limitedBy: line.endIndex) ?? line.endIndex
                var value = ""
                while index < line.endIndex, line[index] != "\"" {
                    if line[index] == "\\" {
                        index = line.index(after: index)
                        guard index < line.endIndex else { break }
                        value.append(line[index] == "n" ? "\n" : line[index])
                    } else {
                        value.append(line[index])
                    }
                    index = line.index(after: index)
                }
                guard index < line.endIndex else { throw ParseError(line: number, reason: "unterminated label value") }
                labels[key] = value
                index = line.index(after: index)
                if index < line.endIndex, line[index] == "," { index = line.index(after: index) }
            }
            guard index < line.endIndex else { throw ParseError(line: number, reason: "unterminated label set") }
            index = line.index(after: index)
        }
        let valueText = line[index...].trimmingCharacters(in: .whitespaces)
        let parsed: Double?
        switch valueText {
        case "+Inf": parsed = .infinity
        case "-Inf": parsed = -.infinity
        case "NaN": parsed = .nan
        default: parsed = Double(valueText)
        }
        guard let value = parsed else { throw ParseError(line: number, reason: "bad value \"\(valueText)\"") }
        return Line(name: name, labels: labels, value: value)
    }
}
