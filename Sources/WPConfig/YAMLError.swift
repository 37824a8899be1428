/// A YAML document that could not be read, with the exact place of the problem.
///
/// The description has the conventional `file:line:column: message` form, so editors and
/// terminals can jump to it.
package struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file name given to the reader (for messages only).
    public var file: String
    /// Where the problem is.
    public var position: SourcePosition
    /// What is wrong, and what is allowed instead.
    public var message: String

    /// Creates an error.
    public init(file: String, position: SourcePosition, message: String) {
        self.file = file
        self.position = position
        self.message = message
    }

    /// `file:line:column: message`.
    public var description: String { "\(file):\(position.line):\(position.column): \(message)" }
}
