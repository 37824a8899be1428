#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import WPPOSIX
import WPTestThreads

/// Directories made and listed once for the log sinks and the data directory.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct POSIXDirectoryTests {
    @Test func missingParentsAreMadeAndListed() throws {
        let root = try scratchDirectory("dir")
        defer { for path in ["/a/b/c", "/a/b", "/a/file", "/a", ""] { _ = remove(root + path) } }
        #expect(POSIXFile.makeDirectories(root + "/a/b/c") == nil)
        #expect(POSIXFile.isDirectory(root + "/a/b/c"))
        #expect(POSIXFile.makeDirectories(root + "/a/b/c") == nil, "an existing directory is fine")
        let fd = open(root + "/a/file", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        close(fd)
        #expect(POSIXFile.entries(of: root + "/a").map(Set.init) == ["b", "file"])
        #expect(POSIXFile.exists(root + "/a/file") && !POSIXFile.isDirectory(root + "/a/file"))
    }

    @Test func aFileInTheWayIsNamedAsNotADirectory() throws {
        let root = try scratchDirectory("dir")
        defer { for path in ["/file", ""] { _ = remove(root + path) } }
        close(open(root + "/file", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
        let failed = try #require(POSIXFile.makeDirectories(root + "/file/sub"))
        #expect(failed.path == root + "/file")
        #expect(failed.errno == ENOTDIR)
    }

    /// The data directory's parent and the web configuration's relative certificate paths are
    /// found as with `NSString.deletingLastPathComponent`, which WPStorage and WPConfig used
    /// before they dropped Foundation.
    @Test func theParentOfAPathIsWhatNSStringGives() {
        for path in ["/var/lib/wp", "/var/lib/wp/", "wp", "/wp", "/", "a/b", "a//b", "a/b//", "./x", "../x/y", "//x", "",
                     "/etc/wp/web.yml", "conf/web.yml", "a//b.yml", "a//b/c"] {
            #expect(POSIXFile.parentDirectory(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
        }
    }

    @Test func anUnreadableDirectoryIsItsErrno() {
        let entries = POSIXFile.entries(of: "/nonexistent-wp-dir")
        let code = errno
        #expect(entries == nil)
        #expect(code == ENOENT)
    }
}
