import WPLogging

extension LogRecord {
    /// 2026-11-22T02:37:19.123Z
    static let referenceTime = LogTimestamp(seconds: 1_795_315_039, nanoseconds: 123_000_000)

    /// A record with a default for every field.
    static func make(time: LogTimestamp = referenceTime, level: LogLevel = .info, message: String = "login ok",
                     logger: String = "client", fields: LogFields = [:],
                     file: String = "WPClient/Client.swift", line: UInt = 42) -> LogRecord {
        LogRecord(time: time, level: level, message: message, logger: logger, fields: fields, file: file, line: line)
    }
}
