/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Repeated fields are kept in arrival order; `subscript(name)` returns the first.
public struct WPHTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field: its name as sent and its value.
    public typealias Element = (name: String, value: String)

    private var fields: [Element] = []

    /// Creates an empty list.
    public init() {}

    /// Creates the list of `fields` (name, value), in order.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Creates the list of the literal's fields, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Whether a field named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with one field holding `value`.
    public mutating func set(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The number of fields, repeated ones counted each.
    public var count: Int { fields.count }

    /// An iterator over the fields, in order.
    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    /// Whether both lists hold the same fields in the same order, names compared exactly (case
    /// included).
    public static func == (lhs: WPHTTPHeaders, rhs: WPHTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension String {
    /// ASCII case-insensitive comparison, as HTTP field names require.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            // Typed step by step: as one expression Swift 6.0 cannot type-check it in time.
            if x == y { return true }
            let lower: UInt8 = x | 0x20
            return lower == y | 0x20 && lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
        }
    }
}
