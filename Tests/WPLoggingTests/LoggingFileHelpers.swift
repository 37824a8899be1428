import WPCZlib
import Foundation
import WPLogging

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

    /// Decompresses a gzip file with zlib's inflate.
    static func gunzip(_ path: String) throws -> String {
        let compressed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw GunzipError(reason: "inflateInit2")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var input = compressed
        var status = Z_OK
        input.withUnsafeMutableBufferPointer { inPtr in
            stream.next_in = inPtr.baseAddress
            stream.avail_in = uInt(inPtr.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { outPtr -> Int in
                    stream.next_out = outPtr.baseAddress
                    stream.avail_out = uInt(outPtr.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return outPtr.count - Int(stream.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
            } while status == Z_OK
        }
        guard status == Z_STREAM_END else { throw GunzipError(reason: "inflate status \(status)") }
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
