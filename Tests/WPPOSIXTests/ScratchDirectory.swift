#if canImport(Glibc)
import Glibc
#endif
import Testing
import WPPOSIX

/// A new empty directory `/tmp/wp-posix-<name>-XXXXXX` (mkdtemp) for one test of this target.
func scratchDirectory(_ name: String) throws -> String {
    var template = Array("/tmp/wp-posix-\(name)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    try #require(made)
    return String(cBuffer: template)
}
