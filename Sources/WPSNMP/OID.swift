/// An OBJECT IDENTIFIER: its sub-identifiers, ordered lexicographically as SNMP walks them
/// (a prefix before everything it prefixes: `1.3.6.1` < `1.3.6.1.0` < `1.3.6.2`).
///
/// ```swift
/// let sysDescr: OID = "1.3.6.1.2.1.1.1.0"
/// sysDescr.isPrefixed(by: "1.3.6.1.2.1.1")  // true
/// ```
package struct OID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The most sub-identifiers a decoded or parsed OID may have (RFC 2578 §3.5 allows 128).
    package static let maxComponents = 128

    /// The sub-identifiers, each within 32 bits.
    package let components: [UInt32]

    /// An OID of `components` (at most ``maxComponents`` are meaningful to SNMP; the codec
    /// refuses longer ones on input, and the agent never builds them).
    package init(_ components: [UInt32]) {
        self.components = components
    }

    /// The OID of dotted decimal text (`1.3.6.1.2.1.1.1.0`, a leading dot allowed); `nil` when
    /// the text is empty, has an empty or non-decimal part, a part beyond 32 bits or more than
    /// ``maxComponents`` parts.
    package init?(parsing text: String) {
        var body = Substring(text)
        if body.hasPrefix(".") { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard !body.isEmpty, parts.count <= Self.maxComponents else { return nil }
        var components: [UInt32] = []
        components.reserveCapacity(parts.count)
        for part in parts {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt32(part) else { return nil }
            components.append(value)
        }
        self.components = components
    }

    /// A literal OID; an invalid literal is a programming error and traps.
    package init(stringLiteral text: String) {
        guard let oid = OID(parsing: text) else { preconditionFailure("invalid OID literal \(text)") }
        self = oid
    }

    /// This OID followed by `suffix`.
    package func appending(_ suffix: UInt32...) -> OID { OID(components + suffix) }

    /// This OID followed by `suffix`.
    package func appending(_ suffix: [UInt32]) -> OID { OID(components + suffix) }

    /// Whether `prefix` is this OID or begins it.
    package func isPrefixed(by prefix: OID) -> Bool {
        components.count >= prefix.components.count && components.starts(with: prefix.components)
    }

    package var description: String { components.map(String.init).joined(separator: ".") }

    package static func < (lhs: OID, rhs: OID) -> Bool {
        for (left, right) in zip(lhs.components, rhs.components) where left != right { return left < right }
        return lhs.components.count < rhs.components.count
    }
}
