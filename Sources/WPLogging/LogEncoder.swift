/// Turns one ``LogRecord`` into the bytes of one output line (terminated by `\n`).
///
/// Encoders are pure values: the same record always gives the same bytes, so they are tested
/// against golden strings. They never see unredacted data (``WPLogger`` redacts before a record
/// reaches a sink) and they escape control characters so one record is always exactly one line.
public protocol LogEncoder: Sendable {
    /// Appends the encoded record, including its trailing newline, to `buffer`.
    ///
    /// - Parameters:
    ///   - record: The record to encode.
    ///   - buffer: The bytes to append to; existing contents are kept.
    func encode(_ record: LogRecord, into buffer: inout [UInt8])
}

extension LogEncoder {
    /// The encoded record as a string, including the trailing newline. Convenient in tests.
    public func encodedLine(_ record: LogRecord) -> String {
        var buffer: [UInt8] = []
        encode(record, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}

/// Which records carry their call site (`caller`, `#fileID:#line`).
///
/// `enable_caller` adds the caller to every record. Swift has no portable way to capture a
/// symbolicated stack trace in-process, so `enable_stacktrace` does the honest subset: it adds
/// the caller to `error` records (the call site is where a stack trace would start).
public struct CallerPolicy: Sendable, Equatable {
    /// Records at or above this level carry the caller; `nil` means none do.
    public var minimumLevel: LogLevel?

    /// Creates a policy by the lowest level whose records carry the caller.
    ///
    /// - Parameter minimumLevel: The lowest level that carries the caller, or `nil` for none.
    public init(minimumLevel: LogLevel?) {
        self.minimumLevel = minimumLevel
    }

    /// No record carries the caller.
    public static let never = CallerPolicy(minimumLevel: nil)
    /// Every record carries the caller.
    public static let always = CallerPolicy(minimumLevel: .debug)
    /// Only `error` records carry the caller.
    public static let errorsOnly = CallerPolicy(minimumLevel: .error)

    /// The policy for the `enable_caller` / `enable_stacktrace` settings.
    public init(enableCaller: Bool, enableStacktrace: Bool) {
        self.minimumLevel = enableCaller ? .debug : (enableStacktrace ? .error : nil)
    }

    /// Whether `record` should carry its caller (it must also have a file name).
    public func includes(_ record: LogRecord) -> Bool {
        guard let minimumLevel, !record.file.isEmpty else { return false }
        return record.level >= minimumLevel
    }
}

/// Number formatting shared by the encoders.
enum NumberText {
    /// `12.5`, `1e-05`, `3.0`; non-finite values as `NaN`, `+Inf`, `-Inf`.
    static func double(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return value.description
    }

    static func appendInt(_ value: Int, to out: inout [UInt8]) {
        if value >= 0, value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        out.append(contentsOf: String(value).utf8)
    }
}
