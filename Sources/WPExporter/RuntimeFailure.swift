/// A failure while running a command; exits 1.
package struct RuntimeFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed.
    package var message: String
    package var description: String { message }

    package init(message: String) {
        self.message = message
    }
}
