/// A secret string (a password) that never shows itself.
///
/// `description`, `debugDescription`, string interpolation and reflection (`dump`) all print
/// `******`; only ``reveal()`` returns the text, so every use is explicit and searchable.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What a secret looks like in output.
    public static let mask = "******"

    private let value: String

    /// Wraps a secret.
    public init(_ value: String) { self.value = value }

    /// The secret text. Call only where the secret is used (an HTTP login), never to print it.
    public func reveal() -> String { value }

    /// Whether the secret is the empty string.
    public var isEmpty: Bool { value.isEmpty }

    /// ``mask``, never the secret.
    public var description: String { Self.mask }
    /// ``mask``, never the secret.
    public var debugDescription: String { Self.mask }
    /// A mirror without children, so `dump` and debuggers never show the secret.
    public var customMirror: Mirror { Mirror(self, children: []) }
}
