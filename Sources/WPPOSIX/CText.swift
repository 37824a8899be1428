#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's text for the error number `code` (`strerror(3)`: `Connection refused`), or
/// `error <code>` when it has none. The one reading of `errno` as text for every module.
package func systemErrorText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}

extension String {
    /// The text of a C character buffer filled by a call (`getnameinfo`, `inet_ntop`, OpenSSL's
    /// and libcurl's error buffers): its bytes up to the first NUL, or all of them without one,
    /// decoded as UTF-8 (invalid sequences replaced).
    package init(cBuffer: some Sequence<CChar>) {
        var bytes: [UInt8] = []
        for character in cBuffer {
            if character == 0 { break }
            bytes.append(UInt8(bitPattern: character))
        }
        self.init(decoding: bytes, as: UTF8.self)
    }
}
