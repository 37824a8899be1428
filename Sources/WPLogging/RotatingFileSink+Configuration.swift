#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension RotatingFileSink {
    /// Size, retention and compression settings of a ``RotatingFileSink``.
    public struct Configuration: Sendable, Equatable {
        /// The active log file. Rotated files go next to it.
        public var path: String
        /// Rotate before a write would make the file larger than this many bytes.
        public var maxSizeBytes: Int
        /// Keep at most this many rotated files (newest first); 0 keeps them all.
        public var maxBackups: Int
        /// Delete rotated files whose rotation time is older than this many seconds; 0 keeps
        /// them regardless of age.
        public var maxAge: Double
        /// Gzip rotated files (`name.log` → `name.log.gz`).
        public var compress: Bool
        /// Permissions of files the sink creates. Default `0o640`.
        public var fileMode: mode_t
        /// The most bytes of lines waiting for the writer's thread; later lines are dropped and
        /// counted until it catches up (a line arriving at an empty queue is always taken).
        /// Default 4 MiB.
        public var bufferLimitBytes: Int = 4 << 20

        /// Settings in the configuration file's units.
        ///
        /// - Parameters:
        ///   - path: The active log file.
        ///   - maxSizeMB: Maximum size in MiB before rotation; default 100.
        ///   - maxBackups: Rotated files to keep; 0 keeps all; default 3.
        ///   - maxAgeDays: Days to keep rotated files; 0 keeps them regardless of age; default 7.
        ///   - compress: Gzip rotated files; default `true`.
        public init(path: String, maxSizeMB: Int = 100, maxBackups: Int = 3, maxAgeDays: Int = 7,
                    compress: Bool = true) {
            let (bytes, overflow) = max(maxSizeMB, 1).multipliedReportingOverflow(by: 1 << 20)
            self.init(path: path, maxSizeBytes: overflow ? Int.max : bytes, maxBackups: maxBackups,
                      maxAge: Double(max(maxAgeDays, 0)) * 86_400, compress: compress)
        }

        /// Settings in bytes and seconds, for fine control (and small sizes in tests).
        ///
        /// - Parameters:
        ///   - path: The active log file.
        ///   - maxSizeBytes: Maximum size in bytes before rotation (at least 1).
        ///   - maxBackups: Rotated files to keep; 0 keeps all.
        ///   - maxAge: Seconds to keep rotated files; 0 keeps them regardless of age.
        ///   - compress: Gzip rotated files.
        ///   - fileMode: Permissions of created files.
        public init(path: String, maxSizeBytes: Int, maxBackups: Int, maxAge: Double, compress: Bool,
                    fileMode: mode_t = 0o640) {
            self.path = path
            self.maxSizeBytes = max(maxSizeBytes, 1)
            self.maxBackups = max(maxBackups, 0)
            self.maxAge = maxAge.isFinite ? max(maxAge, 0) : 0
            self.compress = compress
            self.fileMode = fileMode
        }
    }

    /// One rotated file as found on disk: `<stem>-<YYYY-MM-DDTHH-MM-SS.mmm>[-N]<ext>[.gz]`.
    struct Backup: Equatable {
        /// Uncompressed name (without `.gz`), relative to the directory.
        var name: String
        var stamp: String
        var sequence: Int
        var time: LogTimestamp
        var hasPlain: Bool
        var hasGzip: Bool

        /// Newest first: later stamp, then higher sequence number.
        static func newerFirst(_ lhs: Backup, _ rhs: Backup) -> Bool {
            lhs.stamp != rhs.stamp ? lhs.stamp > rhs.stamp : lhs.sequence > rhs.sequence
        }
    }

    /// How rotated files of one active file are named and recognised.
    struct BackupNaming: Sendable {
        let directory: String
        let stem: String
        let ext: String

        init(path: String) {
            directory = FileIO.directory(of: path)
            let name = FileIO.fileName(of: path)
            if let dot = name.lastIndex(of: "."), dot != name.startIndex {
                stem = String(name[..<dot])
                ext = String(name[dot...])
            } else {
                stem = name
                ext = ""
            }
        }

        func name(stamp: String, sequence: Int) -> String {
            stem + "-" + stamp + (sequence > 0 ? "-\(sequence)" : "") + ext
        }

        func path(_ name: String) -> String {
            directory == "/" ? "/" + name : directory + "/" + name
        }

        /// Parses an uncompressed backup name (no `.gz`); `nil` for anything else.
        func parse(_ name: String) -> (stamp: String, sequence: Int, time: LogTimestamp)? {
            let prefix = stem + "-"
            guard name.hasPrefix(prefix), name.hasSuffix(ext),
                  name.utf8.count >= prefix.utf8.count + Timestamp.fileStampLength + ext.utf8.count
            else { return nil }
            let middle = name.dropFirst(prefix.count).dropLast(ext.count)
            let stampText = middle.prefix(Timestamp.fileStampLength)
            guard let time = Timestamp.parseFileStamp(stampText) else { return nil }
            let rest = middle.dropFirst(Timestamp.fileStampLength)
            var sequence = 0
            if !rest.isEmpty {
                guard rest.first == "-", let number = Int(rest.dropFirst()), number > 0 else { return nil }
                sequence = number
            }
            return (String(stampText), sequence, time)
        }
    }
}
