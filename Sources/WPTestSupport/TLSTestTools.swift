import Foundation

/// Runs command-line TLS clients (`curl`, `openssl`) for tests without blocking Swift
/// concurrency's threads.
public enum TLSTestTools {
    /// What a finished command printed.
    public struct Output: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// A helper command failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The first executable named `name` on `PATH` or in the usual directories.
    public static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/bin"]
        return directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a command to completion on a thread of its own; the caller's task suspends.
    public static func run(_ executable: String, _ arguments: [String], in directory: String? = nil) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try runBlocking(executable, arguments, in: directory) })
            }
            thread.start()
        }
    }

    /// Runs a command to completion, blocking the calling thread.
    public static func runBlocking(_ executable: String, _ arguments: [String], in directory: String?) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes to the end before waiting, so a chatty command cannot fill one and stall.
        let errorData = DataBox()
        let done = DispatchSemaphore(value: 0)
        Thread {
            errorData.data = error.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      standardOutput: String(decoding: outputData, as: UTF8.self),
                      standardError: String(decoding: errorData.data, as: UTF8.self))
    }

    /// `curl` against `https://127.0.0.1:port/path`, trusting `caFile`. The status code is the
    /// last line of standard output; `verbose` adds the handshake details to standard error.
    public static func curl(port: Int, path: String = "/", caFile: String, clientCertificate: (String, String)? = nil,
                            user: String? = nil, verbose: Bool = false, scheme: String = "https") async throws -> Output {
        guard let curl = TLSTestCertificates.curl else { throw Failure("curl is not installed") }
        var arguments = ["-sS", "--max-time", "20", "--cacert", caFile, "-o", "/dev/null", "-w", "%{http_code}\n"]
        if verbose { arguments.append("-v") }
        if let (certificate, key) = clientCertificate { arguments += ["--cert", certificate, "--key", key] }
        if let user { arguments += ["-u", user] }
        arguments.append("\(scheme)://127.0.0.1:\(port)\(path)")
        return try await run(curl, arguments)
    }
}

/// Bytes handed from a reader thread to its waiter. Safety of `@unchecked Sendable`: written
/// once by the reader before it signals the semaphore, read only after the waiter's `wait()`.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
