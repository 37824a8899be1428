import WPPOSIX
import WPRuntime
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Standard `process_*` metrics for the current process, read from `/proc` at scrape time.
///
/// Exposes `process_cpu_seconds_total`, `process_resident_memory_bytes`,
/// `process_virtual_memory_bytes`, `process_virtual_memory_max_bytes`, `process_open_fds`,
/// `process_max_fds`, `process_start_time_seconds` and `process_threads`, like the Go client.
/// Where `/proc` is absent (macOS) or unreadable, the affected families are simply omitted.
///
/// ```swift
/// try registry.register(ProcessCollector())
/// ```
public struct ProcessCollector: Collector {
    /// Where to read from and how to name the metrics.
    public struct Configuration: Sendable, Equatable {
        /// The procfs mount point.
        public var procRoot: String
        /// The process directory under ``procRoot`` (`self` or a PID).
        public var process: String
        /// Optional prefix: `"myapp"` gives `myapp_process_cpu_seconds_total`.
        public var namespace: String

        /// Creates a configuration for the current process.
        public init(procRoot: String = "/proc", process: String = "self", namespace: String = "") {
            self.procRoot = procRoot
            self.process = process
            self.namespace = namespace
        }
    }

    /// The configuration in use.
    public let configuration: Configuration
    private let ticksPerSecond: Double
    private let pageSize: Double
    /// `btime` from `<procRoot>/stat`, read once: the kernel renders that whole file (every CPU
    /// and interrupt counter) on each read, and the boot time never changes.
    private let bootTime: UInt64?

    /// Creates a process collector.
    /// - Parameter configuration: Where to read from and how to name the metrics.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        #if canImport(Glibc)
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        let page = sysconf(Int32(_SC_PAGESIZE))
        self.ticksPerSecond = ticks > 0 ? Double(ticks) : 100
        self.pageSize = page > 0 ? Double(page) : 4096
        #else
        self.ticksPerSecond = 100
        self.pageSize = 4096
        #endif
        self.bootTime = Self.read(configuration.procRoot + "/stat").flatMap { try? ProcessFiles.parseBootTime($0) }
    }

    private var prefix: String { configuration.namespace.isEmpty ? "process_" : configuration.namespace + "_process_" }

    private var table: [(suffix: String, help: String, type: MetricType)] {
        [("cpu_seconds_total", "Total user and system CPU time spent in seconds.", .counter),
         ("max_fds", "Maximum number of open file descriptors.", .gauge),
         ("open_fds", "Number of open file descriptors.", .gauge),
         ("resident_memory_bytes", "Resident memory size in bytes.", .gauge),
         ("start_time_seconds", "Start time of the process since unix epoch in seconds.", .gauge),
         ("threads", "Number of OS threads in the process.", .gauge),
         ("virtual_memory_bytes", "Virtual memory size in bytes.", .gauge),
         ("virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", .gauge)]
    }

    /// Every `process_*` family this collector can produce, with the namespace prefix.
    public var descriptors: [MetricDescriptor] {
        table.map { MetricDescriptor(name: prefix + $0.suffix, help: $0.help, type: $0.type) }
    }

    /// The `process_*` families read from `/proc` now; those it cannot read are left out.
    public func collect() -> [MetricFamily] {
        let directory = configuration.procRoot + "/" + configuration.process
        var values: [String: Double] = [:]
        if let text = Self.read(directory + "/stat"), let stat = try? ProcessFiles.parseStat(text) {
            values["cpu_seconds_total"] = Double(stat.userTicks + stat.systemTicks) / ticksPerSecond
            values["threads"] = Double(stat.threads)
            values["virtual_memory_bytes"] = Double(stat.virtualBytes)
            values["resident_memory_bytes"] = Double(stat.residentPages) * pageSize
            if let boot = bootTime ?? Self.read(configuration.procRoot + "/stat").flatMap({ try? ProcessFiles.parseBootTime($0) }) {
                values["start_time_seconds"] = Double(boot) + Double(stat.startTicks) / ticksPerSecond
            }
        }
        if let text = Self.read(directory + "/limits"), let limits = try? ProcessFiles.parseLimits(text) {
            if let files = limits.maxOpenFiles { values["max_fds"] = Double(files) }
            if let space = limits.maxAddressSpace { values["virtual_memory_max_bytes"] = Double(space) }
        }
        if let count = Self.countEntries(directory + "/fd") {
            values["open_fds"] = Double(count)
        }
        var families: [MetricFamily] = []
        for entry in table {
            guard let value = values[entry.suffix],
                  var family = try? MetricFamily(name: prefix + entry.suffix, help: entry.help, type: entry.type),
                  (try? family.append(labelValues: [], value: value)) != nil else { continue }
            families.append(family)
        }
        return families
    }

    /// The whole file, read until end of file (procfs files report a size of 0); `nil` when it
    /// cannot be opened or read.
    private static func read(_ path: String) -> String? {
        #if canImport(Glibc)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // /proc files are small; 1 MiB bounds a surprise.
        switch POSIXFile.read(descriptor, limit: 1 << 20) {
        case .bytes(let bytes), .truncated(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failed: return nil
        }
        #else
        return FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
        #endif
    }

    /// The number of entries in a directory, without `.` and `..`; `nil` when it cannot be listed.
    private static func countEntries(_ path: String) -> Int? {
        #if canImport(Glibc)
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDotEntry = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == 0x2E && (name[1] == 0 || name[1] == 0x2E && name[2] == 0)
            }
            if !isDotEntry { count += 1 }
        }
        return count
        #else
        return (try? FileManager.default.contentsOfDirectory(atPath: path))?.count
        #endif
    }
}
