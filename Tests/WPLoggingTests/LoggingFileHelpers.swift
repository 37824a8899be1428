import WPCZlib
import Foundation
import WPLogging
import WPCompression

/// Writes only the message and a newline, so file sizes in rotation tests are exact.
struct MessageOnlyEncoder: LogEncoder {
    func encode(_ record: LogRecord, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: record.message.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }
}

enum LoggingFiles {
    /// File names in `directory`, sorted.
    static func names(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    static func text(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<missing \(path)>"
    }

    /// Decompresses a gzip file of one member.
    static func gunzip(_ path: String) throws -> String {
        let compressed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        guard let output = Gzip.decompress(compressed) else { throw GunzipError(reason: "not one gzip member: \(path)") }
        return String(decoding: output, as: UTF8.self)
    }

    struct GunzipError: Error {
        var reason: String
    }
}

/// Writes gzip fixtures with zlib's `gz*` API (independent of the code under test).
enum GzipFixture {
    static func write(_ text: String, to path: String) throws {
        guard let file = gzopen(path, "wb") else { throw LoggingFiles.GunzipError(reason: "gzopen \(path)") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { gzwrite(file, $0.baseAddress, UInt32($0.count)) }
        gzclose(file)
        guard written == bytes.count else { throw LoggingFiles.GunzipError(reason: "gzwrite \(path)") }
    }
}
