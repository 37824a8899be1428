import FoundationEssentials
import Testing
import WPTestThreads
@testable import WPExporter
@testable import wpexporter

/// `wpexporter version` prints the version of CHANGELOG.md's latest release, the tag a release
/// gets (docs/api-stability.md).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ChangelogVersionTests {
    @Test func versionIsTheLatestReleaseOfTheChangelog() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appending(path: "CHANGELOG.md"), encoding: .utf8)
        let releases = changelog.split(separator: "\n").compactMap { line -> Substring? in
            guard line.hasPrefix("## ["), let close = line.firstIndex(of: "]") else { return nil }
            let version = line[line.index(line.startIndex, offsetBy: 4)..<close]
            return version.first?.isNumber == true ? version : nil
        }
        let latest = try #require(releases.first)
        #expect(BuildInfo.exporterVersion == String(latest))
        #expect(BuildInfo.current.version == String(latest))
        let parts = latest.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "semantic version \(latest)")
    }
}
