import Testing
import WPTestThreads
import WPText
@testable import WPMetrics

/// The characters a label value shows as U+FFFD are written three times, for speed: as scalars
/// in WPText's `DisplayText` (what `/health` and the status pages replace), and as UTF-8 byte
/// patterns in `Escaping.appendLabelValue` and in the fast line writer's `writeLabelValue`.
/// Every scalar of the planes they cover is run through both byte paths and compared with
/// `DisplayText`, so the three cannot drift apart.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct LabelEscapingSetTests {
    /// What a label value `a<scalar>b` must be written as: `\`, `"` and newline escaped, tab
    /// kept (the formats allow it), what `DisplayText` replaces as U+FFFD, the rest as it is.
    private static func expected(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\\": "a\\\\b"
        case "\"": "a\\\"b"
        case "\n": "a\\nb"
        case "\t": "a\tb"
        default: "a\(DisplayText.isReplaced(scalar) ? DisplayText.replacement : scalar)b"
        }
    }

    private static func viaAppend(_ value: String) -> String {
        var bytes: [UInt8] = []
        Escaping.appendLabelValue(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func viaFastWriter(_ value: String) -> String {
        let utf8 = Array(value.utf8)
        let destination = UnsafeMutablePointer<UInt8>.allocate(capacity: utf8.count * 3)
        defer { destination.deallocate() }
        let count = utf8.withUnsafeBufferPointer { Escaping.writeLabelValue($0, to: destination) }
        return String(decoding: UnsafeBufferPointer(start: destination, count: count), as: UTF8.self)
    }

    @Test func bothWritersReplaceExactlyWhatDisplayTextReplaces() {
        var mismatches: [String] = []
        var replaced = 0
        for code in UInt32(0)...0x3FFF {
            guard let scalar = Unicode.Scalar(code) else { continue }
            let value = "a\(scalar)b"
            let want = Self.expected(scalar)
            if want.unicodeScalars.contains(DisplayText.replacement) { replaced += 1 }
            for (path, got) in [("appendLabelValue", Self.viaAppend(value)), ("writeLabelValue", Self.viaFastWriter(value))]
                where got != want {
                mismatches.append("U+\(String(code, radix: 16, uppercase: true)) \(path)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
        // C0 but tab and newline (30), DEL and C1 (33), U+061C, U+200E/F, U+202A–E, U+2066–9.
        #expect(replaced == 30 + 33 + 1 + 2 + 5 + 4)
    }
}
