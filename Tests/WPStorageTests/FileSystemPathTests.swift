import Foundation
import Testing
import WPTestThreads
@testable import WPStorage

/// Listing a directory in WPStorage (the parent of a path is WPPOSIX's: POSIXDirectoryTests).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct FileSystemPathTests {
    @Test func listDirectoryNamesEntriesAndNamesTheFailure() throws {
        let directory = NSTemporaryDirectory() + "wpstorage-list-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["a.txt", "b.txt", "ü.txt"] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data()))
        }
        #expect(try FileSystem.listDirectory(directory).sorted() == ["a.txt", "b.txt", "ü.txt"])
        #expect(throws: StorageError.self) { try FileSystem.listDirectory(directory + "/missing") }
        do {
            _ = try FileSystem.listDirectory(directory + "/missing")
        } catch {
            #expect(error.description.contains("list directory \(directory)/missing: No such file or directory"))
        }
    }
}
