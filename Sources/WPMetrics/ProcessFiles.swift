import WPText

/// Pure parsers for the `/proc` files the ``ProcessCollector`` reads, tested on fixture text.
public enum ProcessFiles {
    /// The fields of `/proc/<pid>/stat` the process metrics need.
    public struct Stat: Sendable, Equatable {
        /// User-mode CPU time in clock ticks (field 14).
        public var userTicks: UInt64
        /// Kernel-mode CPU time in clock ticks (field 15).
        public var systemTicks: UInt64
        /// Number of threads (field 20).
        public var threads: UInt64
        /// Start time after boot in clock ticks (field 22).
        public var startTicks: UInt64
        /// Virtual memory size in bytes (field 23).
        public var virtualBytes: UInt64
        /// Resident set size in pages (field 24).
        public var residentPages: UInt64

        /// Creates parsed stat fields (for tests and other sources).
        public init(userTicks: UInt64, systemTicks: UInt64, threads: UInt64, startTicks: UInt64,
                    virtualBytes: UInt64, residentPages: UInt64) {
            self.userTicks = userTicks
            self.systemTicks = systemTicks
            self.threads = threads
            self.startTicks = startTicks
            self.virtualBytes = virtualBytes
            self.residentPages = residentPages
        }
    }

    /// Parses `/proc/<pid>/stat`; the command name may contain spaces and parentheses.
    ///
    /// - Parameter text: The file contents.
    /// - Returns: The parsed fields.
    /// - Throws: ``MetricsError/unparsableProcessFile(_:reason:)`` naming the missing field.
    public static func parseStat(_ text: String) throws(MetricsError) -> Stat {
        let bytes = text.utf8
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else {
            throw .unparsableProcessFile("stat", reason: "no ')' closing the command name")
        }
        // Fields after the command name start at field 3 (state).
        let fields = bytes[bytes.index(after: close)...].split(whereSeparator: { $0 == 0x20 || $0 == 0x0A }).map(Substring.init)
        func field(_ number: Int) throws(MetricsError) -> UInt64 {
            let index = number - 3
            guard index < fields.count else {
                throw .unparsableProcessFile("stat", reason: "field \(number) is missing (only \(fields.count + 2) fields)")
            }
            guard let value = UInt64(fields[index]) else {
                throw .unparsableProcessFile("stat", reason: "field \(number) is not a number: \(String(fields[index]).debugDescription)")
            }
            return value
        }
        return Stat(userTicks: try field(14), systemTicks: try field(15), threads: try field(20),
                    startTicks: try field(22), virtualBytes: try field(23), residentPages: try field(24))
    }

    /// The soft limits of `/proc/<pid>/limits` the process metrics need.
    public struct Limits: Sendable, Equatable {
        /// "Max open files" soft limit; `UInt64.max` when unlimited.
        public var maxOpenFiles: UInt64?
        /// "Max address space" soft limit in bytes; `UInt64.max` when unlimited.
        public var maxAddressSpace: UInt64?

        /// Creates limits (nil where unknown).
        public init(maxOpenFiles: UInt64? = nil, maxAddressSpace: UInt64? = nil) {
            self.maxOpenFiles = maxOpenFiles
            self.maxAddressSpace = maxAddressSpace
        }
    }

    /// Parses `/proc/<pid>/limits` (a fixed-width table; the soft limit follows the name).
    ///
    /// - Parameter text: The file contents.
    /// - Returns: The soft limits found (nil for rows that are absent).
    /// - Throws: ``MetricsError/unparsableProcessFile(_:reason:)`` for a malformed row.
    public static func parseLimits(_ text: String) throws(MetricsError) -> Limits {
        var limits = Limits()
        // Bytes only: Character-wise splitting and prefix tests cost more than the rest of a scrape.
        let rows: [(prefix: String, keyPath: WritableKeyPath<Limits, UInt64?>)] =
            [("Max open files", \.maxOpenFiles), ("Max address space", \.maxAddressSpace)]
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            guard line.first == UInt8(ascii: "M") else { continue }
            for row in rows where line.starts(with: row.prefix.utf8) {
                let rest = line.dropFirst(row.prefix.utf8.count)
                guard let soft = rest.split(separator: UInt8(ascii: " ")).first.map(Substring.init) else {
                    throw .unparsableProcessFile("limits", reason: "no soft limit on the \(row.prefix.debugDescription) row")
                }
                if soft == "unlimited" {
                    limits[keyPath: row.keyPath] = .max
                } else if let value = UInt64(soft) {
                    limits[keyPath: row.keyPath] = value
                } else {
                    throw .unparsableProcessFile("limits", reason: "soft limit \(String(soft).debugDescription) on the \(row.prefix.debugDescription) row is not a number")
                }
            }
        }
        return limits
    }

    /// Parses the boot time (`btime`, seconds since the epoch) from `/proc/stat`.
    ///
    /// - Parameter text: The file contents.
    /// - Returns: The boot time.
    /// - Throws: ``MetricsError/unparsableProcessFile(_:reason:)`` when `btime` is absent or bad.
    public static func parseBootTime(_ text: String) throws(MetricsError) -> UInt64 {
        for lineBytes in text.utf8.split(separator: UInt8(ascii: "\n")) where lineBytes.starts(with: "btime ".utf8) {
            let line = Substring(lineBytes)
            guard let value = UInt64(line.dropFirst(6).trimmingSpacesAndTabs()) else {
                throw .unparsableProcessFile("/proc/stat", reason: "btime is not a number")
            }
            return value
        }
        throw .unparsableProcessFile("/proc/stat", reason: "no btime line")
    }
}
