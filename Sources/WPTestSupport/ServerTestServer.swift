package import WPLogging
package import WPServer

/// Runs an ``WPHTTPServer`` for the duration of `body` and always shuts it down.
///
/// The server binds `configuration` (by default ``WPHTTPServer/Configuration/forTests``); `body`
/// receives the bound port. When `body` returns or throws, the server is cancelled and this
/// function waits until it has closed every descriptor.
///
/// ```swift
/// try await withTestServer(HandlerFunction { _ in .text("hi") }) { port in
///     let client = try await TestHTTPClient.connect(port: port)
///     try await client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
///     #expect(try await client.readResponse().status == 200)
/// }
/// ```
///
/// - Throws: The server's bind error, or whatever `body` throws.
package func withTestServer<T>(
    _ handler: any HTTPHandler,
    configuration: WPHTTPServer.Configuration = .forTests,
    logger: WPLogger = .disabled,
    observer: (any RequestObserver)? = nil,
    _ body: (Int) async throws -> T
) async throws -> T {
    let server = WPHTTPServer(configuration: configuration, handler: handler, logger: logger, observer: observer)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        let result: Result<T, any Error>
        do {
            let address = try await server.waitUntilListening()
            result = .success(try await body(address.port))
        } catch {
            result = .failure(error)
        }
        group.cancelAll()
        do {
            try await group.waitForAll()
        } catch {
            if case .success = result { throw error }
        }
        return try result.get()
    }
}

package extension WPHTTPServer.Configuration {
    /// An ephemeral port on 127.0.0.1, with head and idle timeouts longer than any suite's time
    /// limit: a test that is not about timeouts keeps its connection while a loaded machine
    /// leaves its thread waiting (the default 10 s head timeout, counted from accept, once closed
    /// a test's connection before its first request was sent). Tests of the timeouts set them.
    static var forTests: Self {
        var configuration = Self(host: "127.0.0.1", port: 0)
        configuration.headTimeout = .seconds(900)
        configuration.idleTimeout = .seconds(900)
        return configuration
    }
}
