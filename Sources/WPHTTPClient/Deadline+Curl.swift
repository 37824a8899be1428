import WPRuntime

extension Deadline {
    /// Whole milliseconds left, at least 1, for libcurl's timeout option.
    var curlMilliseconds: Int {
        max(1, Int(remainingMilliseconds))
    }
}
