@testable import WPClient

/// Reaches the internal body preview for tests.
enum BodyPreviewProbe {
    static func masked(_ text: String) -> String { BodyPreview.masked(Array(text.utf8)) }
}
