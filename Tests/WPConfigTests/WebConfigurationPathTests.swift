import Foundation
import Testing
import WPTestThreads
@testable import WPConfig

/// Relative certificate paths resolve against the web configuration file's directory exactly
/// as with `NSString.deletingLastPathComponent`, which WPConfig used before it dropped Foundation.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct WebConfigurationPathTests {
    @Test func directoryMatchesNSString() {
        for file in ["/etc/wp/web.yml", "/etc/wp/", "web.yml", "/web.yml", "/", "conf/web.yml", "a//b.yml", "./web.yml", ""] {
            #expect(WebConfigurationReader.directory(of: file) == (file as NSString).deletingLastPathComponent, "\(file)")
        }
    }
}
