package import WPConfig
import WPLogging

/// A runtime failure caused by one configuration key's value (the log file), named the way
/// the configuration names it: `logging.file_path: open ./wpexporter.log: …`.
public struct SettingError: Error, CustomStringConvertible {
    /// The dotted key whose value failed.
    public var key: String
    /// What failed.
    public var underlying: any Error

    /// The underlying error, prefixed with the key unless it names it already.
    public var description: String {
        let text = "\(underlying)"
        return text.contains(key) ? text : "\(key): \(text)"
    }

    /// Runs `body`, naming the key that set the log file in the logger's errors:
    /// `logging.file_path` when `logging.output` is `file` or `both`, else `logging.output`.
    package static func namingLogFile<T>(_ logging: ExporterConfiguration.Logging, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LoggingError {
            var key = "logging.output"
            switch logging.output {
            case .file(let path), .both(let path): if path == logging.filePath { key = "logging.file_path" }
            default: break
            }
            throw SettingError(key: key, underlying: error)
        }
    }
}
