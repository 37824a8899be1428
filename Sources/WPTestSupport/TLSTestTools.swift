import Foundation

/// Runs command-line TLS clients (`curl`, `openssl`) for tests without blocking Swift
/// concurrency's threads.
package enum TLSTestTools {
    /// What a finished command printed.
    package struct Output: Sendable {
        package var status: Int32
        package var standardOutput: String
        package var standardError: String
    }

    /// A helper command failed.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// The first executable named `name` on `PATH` or in the usual directories.
    package static func executable(_ name: String) -> String? {
        ChildProcess.executable(named: name)
    }

    /// Runs a command to completion; the caller's task suspends (the child is reaped and read
    /// on threads of ``ChildProcess``'s own).
    package static func run(_ executable: String, _ arguments: [String], in directory: String? = nil) async throws -> Output {
        let child = try ChildProcess(executable, arguments, directory: directory)
        let status = await child.exitStatus(limit: .seconds(120))
        return Output(status: status, standardOutput: child.standardOutput, standardError: child.standardError)
    }

    /// Runs a command to completion, blocking the calling thread.
    package static func runBlocking(_ executable: String, _ arguments: [String], in directory: String?) throws -> Output {
        let result = try ChildProcess.run(executable, arguments, directory: directory)
        return Output(status: result.status, standardOutput: result.output, standardError: result.error)
    }

    /// `curl` against `https://127.0.0.1:port/path`, trusting `caFile`. The status code is the
    /// last line of standard output; `verbose` adds the handshake details to standard error.
    package static func curl(port: Int, path: String = "/", caFile: String, clientCertificate: (String, String)? = nil,
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
