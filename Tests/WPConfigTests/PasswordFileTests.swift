import Foundation
import Synchronization
import Testing
import WPTestThreads
@testable import WPConfig

/// A private directory under the system's temporary directory, removed by `remove()`.
private struct ScratchDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-pw-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Creates `name` holding `contents`, then extends it to `size` bytes with a hole (a
    /// sparse file: no disk space, reads as zeros).
    func file(_ name: String, contents: String = "", size: Int? = nil) throws -> String {
        let file = path + "/" + name
        #expect(FileManager.default.createFile(atPath: file, contents: Data(contents.utf8)))
        if let size {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
        }
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// The paths a file access read whole.
private final class ReadLog: Sendable {
    private let paths = Mutex<[String]>([])
    func append(_ path: String) { paths.withLock { $0.append(path) } }
    var all: [String] { paths.withLock { $0 } }
}

/// Password files are read with a cap: a huge or endless file is refused after 4 KiB + 1 bytes.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct PasswordFileTests {
    /// File access to the real filesystem for `readPrefix` whose whole-file `read` records its
    /// paths, so a test can show the password file is never read whole.
    private static func recordingAccess(_ reads: ReadLog) -> FileAccess {
        FileAccess(read: { path in
            reads.append(path)
            return .failure(.notFound)
        }, permissions: { _ in nil })
    }

    private static func problems(passwordFile: String, files: FileAccess) -> [String] {
        var environment = TestInputs.credentials
        environment["WINPOWER_EXPORTER_WINPOWER_PASSWORD"] = nil
        environment["WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE"] = passwordFile
        return TestInputs.problems(ConfigurationInputs(environment: environment, files: files))
    }

    @Test func aSparse256MBPasswordFileIsRefusedWithoutBeingReadWhole() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let huge = try scratch.file("huge.password", contents: "hunter2\n", size: 256 << 20)
        let reads = ReadLog()
        #expect(Self.problems(passwordFile: huge, files: Self.recordingAccess(reads)) == [
            "env WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE: winpower.password_file: \"\(huge)\" is larger than 4096 bytes; "
                + "a password file holds only the password",
        ])
        #expect(!reads.all.contains(huge), "the password file went through the whole-file read")
        guard case .success(let start) = FileAccess.readPrefix(ofFileAt: huge, limit: 4097) else {
            Issue.record("the sparse file could not be read")
            return
        }
        #expect(start.count == 4097)
        #expect(start.prefix(8) == ArraySlice("hunter2\n".utf8))
    }

    @Test func anEndlessDeviceIsRefusedForWhatItIs() throws {
        try #require(FileManager.default.fileExists(atPath: "/dev/zero"))
        let reads = ReadLog()
        #expect(Self.problems(passwordFile: "/dev/zero", files: Self.recordingAccess(reads)) == [
            #"env WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE: winpower.password_file: "/dev/zero" cannot be read: it is a character device, not a file"#,
        ])
    }

    /// A FIFO is refused at once, without waiting for a writer (opening it for reading would
    /// block); a device and an empty file say what they are.
    @Test func whatIsNotAPasswordFileIsNamed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let files = FileAccess(read: { _ in .failure(.notFound) }, permissions: { _ in nil })
        let fifo = scratch.path + "/fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let prefix = "env WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE: winpower.password_file: "
        #expect(Self.problems(passwordFile: fifo, files: files) == [prefix + "\"\(fifo)\" cannot be read: it is a named pipe (FIFO), not a file"])
        #expect(Self.problems(passwordFile: "/dev/null", files: files)
                == [prefix + "\"/dev/null\" cannot be read: it is a character device, not a file"])
        let empty = try scratch.file("empty")
        #expect(Self.problems(passwordFile: empty, files: files) == [prefix + "\"\(empty)\" is empty"])
        let newline = try scratch.file("newline", contents: "\n")
        #expect(Self.problems(passwordFile: newline, files: files) == [prefix + "\"\(newline)\" is empty"])
    }

    @Test func theCapIsFourKiBIncludingTheNewline() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let longest = String(repeating: "p", count: 4095)
        let fits = try scratch.file("fits", contents: longest + "\n")
        let files = FileAccess(read: { _ in .failure(.notFound) }, permissions: { _ in nil })
        let loaded = try ConfigurationLoader.load(ConfigurationInputs(
            environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE": fits, "WINPOWER_EXPORTER_WINPOWER_BASE_URL": "https://h",
                          "WINPOWER_EXPORTER_WINPOWER_USERNAME": "admin"],
            files: files))
        #expect(loaded.configuration.winPower.password?.reveal() == longest)
        let over = try scratch.file("over", contents: longest + "pp")
        #expect(Self.problems(passwordFile: over, files: files).first?.hasSuffix(
            #""\#(over)" is larger than 4096 bytes; a password file holds only the password"#) == true)
    }

    @Test func missingDirectoryAndNonUTF8FilesSayWhy() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let files = FileAccess(read: { _ in .failure(.notFound) }, permissions: { _ in nil })
        #expect(Self.problems(passwordFile: scratch.path + "/none", files: files)
                == ["env WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE: winpower.password_file: \"\(scratch.path)/none\" does not exist"])
        #expect(Self.problems(passwordFile: scratch.path, files: files)
                == ["env WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE: winpower.password_file: \"\(scratch.path)\" cannot be read: it is a directory"])
        let latin1 = scratch.path + "/latin1"
        #expect(FileManager.default.createFile(atPath: latin1, contents: Data([0x70, 0xE9, 0x0A])))
        #expect(Self.problems(passwordFile: latin1, files: files)
                == ["env WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE: winpower.password_file: \"\(latin1)\" cannot be read: not UTF-8 text"])
    }

    @Test func aServersPasswordFileHasTheSameCap() {
        let file = "servers:\n  - name: a\n    base_url: https://a.example\n    password_file: /run/big\n"
        let problems = TestInputs.problems(TestInputs.make(
            file: file, files: ["/run/big": String(repeating: "x", count: 5000)]))
        #expect(problems == [
            #"./config.yaml:4:20: servers[0].password_file: "/run/big" is larger than 4096 bytes; a password file holds only the password"#,
        ])
    }

    @Test func passwordsLongerThanTheCapAreRefusedWithoutBeingShown() {
        let long = String(repeating: "s", count: 4097)
        let problems = TestInputs.problems(TestInputs.make(
            file: "servers:\n  - name: a\n    base_url: https://a.example\n    password: \(long)\n",
            environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD": long]))
        #expect(problems == [
            "env WINPOWER_EXPORTER_WINPOWER_PASSWORD: winpower.password: is 4097 bytes long; a password may hold at most 4096 bytes",
            "./config.yaml:4:15: servers[0].password: is 4097 bytes long; a password may hold at most 4096 bytes",
        ])
        #expect(TestInputs.problems(TestInputs.make(environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD": String(long.dropFirst())])).isEmpty)
    }
}
