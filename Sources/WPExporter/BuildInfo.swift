import WPCBuildInfo
import FoundationEssentials
import WPFrontEnd

/// What `wpexporter version` reports.
public struct BuildInfo: Sendable, Equatable, Codable {
    /// The exporter's version (``exporterVersion`` for this build).
    public var version: String
    /// The Swift compiler the build used (``compilerVersion``).
    public var swift: String
    /// The operating system built for (``platformName``).
    public var platform: String
    /// The CPU architecture built for (``architecture``).
    public var arch: String
    /// When the build-info unit was compiled, local time without zone (`2026-11-02T02:50:07`).
    public var buildDate: String
    /// The commit built, as the build passed it in; `unknown` when it did not.
    public var gitCommit: String

    /// The JSON keys of ``json``: the properties' names, snake_case.
    package enum CodingKeys: String, CodingKey {
        /// `version`: ``BuildInfo/version``.
        case version
        /// `swift`: ``BuildInfo/swift``.
        case swift
        /// `platform`: ``BuildInfo/platform``.
        case platform
        /// `arch`: ``BuildInfo/arch``.
        case arch
        /// `build_date`: ``BuildInfo/buildDate``.
        case buildDate = "build_date"
        /// `git_commit`: ``BuildInfo/gitCommit``.
        case gitCommit = "git_commit"
    }

    /// The exporter's version.
    public static let exporterVersion = "0.4.0"

    /// The facts of this build: compiler, platform and the C build-info unit.
    public static var current: BuildInfo {
        BuildInfo(version: exporterVersion, swift: compilerVersion, platform: platformName, arch: architecture,
                  buildDate: isoDate(date: String(cString: cbuildinfo_date()), time: String(cString: cbuildinfo_time())),
                  gitCommit: String(cString: cbuildinfo_commit()))
    }

    /// Plain text, one fact per line.
    public var text: String {
        """
        wpexporter \(version)
          swift:    \(swift)
          platform: \(platform)/\(arch)
          built:    \(buildDate)
          commit:   \(gitCommit)
        """
    }

    /// One JSON object with sorted keys.
    public var json: String {
        String(decoding: JSONBody.bytes(self), as: UTF8.self)
    }

    /// Turns `__DATE__` ("Nov  2 2026") and `__TIME__` into `2026-11-02T02:50:07`.
    package static func isoDate(date: String, time: String) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let parts = date.split(separator: " ")
        guard parts.count == 3, let month = months.firstIndex(of: String(parts[0])), let day = Int(parts[1]),
              let year = Int(parts[2]) else { return "\(date) \(time)" }
        let dayText = day < 10 ? "0\(day)" : "\(day)"
        let monthText = month < 9 ? "0\(month + 1)" : "\(month + 1)"
        return "\(year)-\(monthText)-\(dayText)T\(time)"
    }

    /// The Swift compiler version this was compiled with, to the minor version (`6.3`; `6.4 or
    /// newer` past the newest this source knows).
    public static var compilerVersion: String {
        #if compiler(>=6.4)
        return "6.4 or newer"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }

    /// The operating system compiled for: `linux`, `macos` or `unknown`.
    public static var platformName: String {
        #if os(Linux)
        return "linux"
        #elseif os(macOS)
        return "macos"
        #else
        return "unknown"
        #endif
    }

    /// The CPU architecture compiled for: `x86_64`, `arm64` or `unknown`.
    public static var architecture: String {
        #if arch(x86_64)
        return "x86_64"
        #elseif arch(arm64)
        return "arm64"
        #else
        return "unknown"
        #endif
    }
}
