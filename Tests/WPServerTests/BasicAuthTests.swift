import Testing
import WPTestThreads
import WPLogging
@testable import WPServer
import WPTestSupport

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct BasicAuthTests {
    /// A cost-4 bcrypt hash made with crypt_r itself from a fixed salt.
    static func hash(_ password: String) throws -> String {
        try #require(BCrypt.hash(password: password, setting: "$2b$04$abcdefghijklmnopqrstuu"))
    }

    static func authorization(_ user: String, _ password: String) -> String {
        "Basic " + base64(Array("\(user):\(password)".utf8))
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var output = ""
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for byte in chunk { value = value << 8 | Int(byte) }
            value <<= 8 * (3 - chunk.count)
            for position in 0..<4 {
                output.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
        }
        return output
    }

    static func request(_ authorization: String?, path: String = "/metrics") -> WPHTTPRequest {
        var request = WPHTTPRequest(method: "GET", target: path)
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        return request
    }

    static let inner = HandlerFunction { _ in .text("secret metrics\n") }

    @Test func bcryptFromCryptRMatchesTheKnownFormat() throws {
        let hash = try Self.hash("s3cret")
        #expect(hash.hasPrefix("$2b$04$abcdefghijklmnopqrstu"))
        #expect(BCrypt.cost(of: hash) == 4)
        #expect(BCrypt.hash(password: "s3cret", setting: hash) == hash)
        #expect(BCrypt.hash(password: "other", setting: hash) != hash)
        #expect(BCrypt.cost(of: "plain-password") == nil)
        #expect(BCrypt.cost(of: "$1$abc$def") == nil)
    }

    @Test func rightPasswordIsAcceptedAndCached() async throws {
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": Self.hash("s3cret")])
        let handler = BasicAuthHandler(wrapping: Self.inner, authenticator: authenticator)
        let first = try await handler.handle(Self.request(Self.authorization("prometheus", "s3cret")))
        #expect(first.status == 200)
        #expect(authenticator.bcryptVerifications == 1)
        let second = try await handler.handle(Self.request(Self.authorization("prometheus", "s3cret")))
        #expect(second.status == 200)
        #expect(authenticator.bcryptVerifications == 1, "the second request is answered from the cache")
    }

    @Test func wrongPasswordAndUnknownUserGetTheSame401AfterABcryptEach() async throws {
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": Self.hash("s3cret")])
        let handler = BasicAuthHandler(wrapping: Self.inner, authenticator: authenticator)
        let wrong = try await handler.handle(Self.request(Self.authorization("prometheus", "guess")))
        #expect(authenticator.bcryptVerifications == 1)
        let unknown = try await handler.handle(Self.request(Self.authorization("nobody", "guess")))
        #expect(authenticator.bcryptVerifications == 2, "an unknown user costs a bcrypt too")
        for response in [wrong, unknown] {
            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"] == "Basic realm=\"wpexporter\"")
            #expect(response.body == wrong.body)
        }
        // A wrong password is never cached as a success.
        let again = try await handler.handle(Self.request(Self.authorization("prometheus", "guess")))
        #expect(again.status == 401)
        #expect(authenticator.bcryptVerifications == 3)
    }

    @Test func missingOrMalformedCredentialsGet401() async throws {
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": Self.hash("s3cret")])
        let handler = BasicAuthHandler(wrapping: Self.inner, authenticator: authenticator)
        for header in [nil, "Bearer abc", "Basic !!!", "Basic " + Self.base64(Array("no-colon".utf8))] {
            let response = try await handler.handle(Self.request(header))
            #expect(response.status == 401, "\(header ?? "no header")")
            #expect(response.headers["WWW-Authenticate"] == "Basic realm=\"wpexporter\"")
        }
    }

    @Test func passwordsWithColonsAndUnicodeWork() async throws {
        let authenticator = try WPBasicAuthenticator(users: ["ops": Self.hash("a:b:ü")])
        #expect(authenticator.verify(authorization: Self.authorization("ops", "a:b:ü")))
        #expect(!authenticator.verify(authorization: Self.authorization("ops", "a:b")))
    }

    @Test func aPasswordIsComparedWholeBytesAfterANulIncluded() async throws {
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": Self.hash("correct-horse")])
        let handler = BasicAuthHandler(wrapping: Self.inner, authenticator: authenticator)
        #expect(BCrypt.hash(password: "correct-horse\0junk", setting: try Self.hash("correct-horse")) == nil)
        for password in ["correct-horse\0junk", "correct-horse\0", "\0correct-horse"] {
            let response = try await handler.handle(Self.request(Self.authorization("prometheus", password)))
            #expect(response.status == 401, "\(Array(password.utf8))")
        }
        // The right password still passes, and a NUL variant is not let in by its cache entry.
        #expect(try await handler.handle(Self.request(Self.authorization("prometheus", "correct-horse"))).status == 200)
        #expect(try await handler.handle(Self.request(Self.authorization("prometheus", "correct-horse\0junk"))).status == 401)
        #expect(try await handler.handle(Self.request(Self.authorization("prometheus", "correct-horse"))).status == 200)
    }

    @Test func aPasswordPastBcryptsSeventyTwoBytesIsRefusedNotCut() async throws {
        let longest = String(repeating: "ü", count: 36)  // 72 bytes
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": Self.hash(longest)])
        let handler = BasicAuthHandler(wrapping: Self.inner, authenticator: authenticator)
        #expect(try await handler.handle(Self.request(Self.authorization("prometheus", longest))).status == 200)
        // bcrypt itself would read only the first 72 bytes and let these in.
        for password in [longest + "x", longest + longest] {
            #expect(try await handler.handle(Self.request(Self.authorization("prometheus", password))).status == 401)
        }
        #expect(BCrypt.hash(password: longest + "x", setting: "$2b$04$abcdefghijklmnopqrstuu") == nil)
    }

    @Test func aCachedSuccessClearsTheAddresssFailures() async throws {
        let failures = AuthFailureTracker(threshold: 2, delayStep: .zero, maximumDelay: .zero)
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": Self.hash("s3cret")], failures: failures)
        let handler = BasicAuthHandler(wrapping: Self.inner, authenticator: authenticator)
        func request(_ password: String, from address: String = "10.1.2.3:5000") -> WPHTTPRequest {
            var request = Self.request(Self.authorization("prometheus", password))
            request.remoteAddress = address
            return request
        }
        // The first success is verified with bcrypt and cached.
        #expect(try await handler.handle(request("s3cret")).status == 200)
        #expect(authenticator.bcryptVerifications == 1)
        for _ in 0..<3 { #expect(try await handler.handle(request("guess")).status == 401) }
        #expect(failures.isSuspect("10.1.2.3"))
        #expect(failures.isSuspect("10.9.9.9") == false)
        for _ in 0..<2 { #expect(try await handler.handle(request("guess", from: "10.9.9.9:1")).status == 401) }
        // The same correct password again: answered from the cache, and the penalty is gone.
        let verifications = authenticator.bcryptVerifications
        #expect(try await handler.handle(request("s3cret")).status == 200)
        #expect(authenticator.bcryptVerifications == verifications, "answered from the cache")
        #expect(failures.failures(of: "10.1.2.3") == 0)
        #expect(!failures.isSuspect("10.1.2.3"))
        #expect(failures.isSuspect("10.9.9.9"), "only the address that logged in is forgiven")
    }

    @Test func openPathsSkipAuthentication() async throws {
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": Self.hash("s3cret")])
        let handler = BasicAuthHandler(wrapping: Self.inner, authenticator: authenticator, openPaths: ["/-/healthy"])
        #expect(try await handler.handle(Self.request(nil, path: "/-/healthy")).status == 200)
        #expect(try await handler.handle(Self.request(nil, path: "/metrics")).status == 401)
        #expect(authenticator.bcryptVerifications == 0)
    }

    @Test func nonBcryptHashesAreRejectedWithoutEchoingThem() {
        #expect(throws: BasicAuthError.notBcrypt(user: "prometheus")) {
            try WPBasicAuthenticator(users: ["prometheus": "hunter2"])
        }
        #expect(!BasicAuthError.notBcrypt(user: "prometheus").description.contains("hunter2"))
    }

    @Test func cacheForgetsTheOldestEntryBeyondItsCapacity() {
        var cache = VerificationCache(capacity: 2, salt: [1])
        cache.insert([1])
        cache.insert([2])
        cache.insert([3])
        #expect(!cache.contains([1]))
        #expect(cache.contains([2]) && cache.contains([3]))
    }

    @Test func credentialsNeverReachTheLogOverTheWire() async throws {
        let sink = InMemoryLogSink()
        let authenticator = try WPBasicAuthenticator(users: ["prometheus": Self.hash("s3cret")])
        let handler = BasicAuthHandler(wrapping: Self.inner, authenticator: authenticator)
        let header = Self.authorization("prometheus", "s3cret")
        try await withTestServer(handler, logger: sink.logger()) { port in
            let client = try await TestHTTPClient.connect(port: port)
            defer { client.close() }
            try await client.send("GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: \(header)\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            try await client.send("GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic d3Jvbmc6cGFzc3dvcmQ=\r\n\r\n")
            #expect(try await client.readResponse().status == 401)
        }
        let text = sink.allText
        #expect(text.contains("/metrics"))
        for secret in ["s3cret", header, "d3Jvbmc6cGFzc3dvcmQ=", "password"] { #expect(!text.contains(secret)) }
    }
}
