import WPPOSIX
import WPCCurlShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import WPRuntime

/// `https://` exchanges through libcurl, loaded with `dlopen` on the first one.
///
/// Easy handles are kept per client and reused, so connections and TLS sessions are too; each
/// transfer takes an idle handle (or makes one) for its length, on one of the client's
/// threads, so transfers run side by side and no lock is held while one runs.
/// Redirects are never followed; libcurl's own timeout enforces the deadline and its progress
/// callback polls the cancellation flag (about once a second while waiting).
final class CurlSession: Sendable {
    private let tls: HTTPClient.TLSVerification
    /// Easy handles no transfer is using; one is taken out for each transfer and put back
    /// after it, so there are at most as many as transfers ever ran at once (the client's
    /// `maxThreads`).
    private let idleHandles = Mutex<[CurlHandle]>([])

    init(tls: HTTPClient.TLSVerification) {
        self.tls = tls
    }

    /// Whether libcurl can be loaded in this process; the error says why not.
    static func availability() -> Result<Void, HTTPClientError> {
        var message = [CChar](repeating: 0, count: 256)
        if wp_curl_load(&message, message.count) == 0 { return .success(()) }
        return .failure(HTTPClientError(.libraryUnavailable, "libcurl, needed for https://, is unavailable: "
                                        + text(message)))
    }

    func perform(_ request: HTTPClientRequest, target: RequestTarget, configuration: HTTPClient.Configuration,
                 deadline: Deadline, cancellation: ExchangeCancellation) throws(HTTPClientError) -> HTTPClientResponse {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(ResponseSyntax.isTokenCharacter) else {
            throw HTTPClientError(.invalidRequest, "the method is not a valid HTTP token")
        }
        var headerLines = try RequestEncoder.fields(of: request, userAgent: configuration.userAgent)
            .map { "\($0.name): \($0.value)" }
        if request.header("Expect") == nil { headerLines.append("Expect:") } // no 100-continue round trip
        let result: Result<HTTPClientResponse, HTTPClientError>
        if cancellation.isCancelled {
            result = .failure(ExchangeCancellation.error)
        } else {
            switch takeHandle() {
            case .failure(let error):
                result = .failure(error)
            case .success(let easy):
                // Only this transfer uses `easy` until it is put back; no lock is held meanwhile.
                result = Result { () throws(HTTPClientError) in
                    try transfer(request, url: target.curlURL, headerLines: headerLines, on: easy.raw,
                                 configuration: configuration, deadline: deadline, cancellation: cancellation)
                }
                idleHandles.withLock { $0.append(easy) }
            }
        }
        do throws(HTTPClientError) {
            return try result.get()
        } catch {
            throw Self.scrubbed(error, of: request, target: target)
        }
    }

    /// An idle easy handle, or a new one.
    private func takeHandle() -> Result<CurlHandle, HTTPClientError> {
        if let idle = idleHandles.withLock({ $0.popLast() }) { return .success(idle) }
        guard let raw = wp_curl_handle_create() else {
            if case .failure(let error) = Self.availability() { return .failure(error) }
            return .failure(HTTPClientError(.libraryUnavailable, "could not create a curl handle"))
        }
        return .success(CurlHandle(raw: raw))
    }

    private func transfer(_ request: HTTPClientRequest, url: String, headerLines: [String],
                          on easy: UnsafeMutableRawPointer, configuration: HTTPClient.Configuration,
                          deadline: Deadline, cancellation: ExchangeCancellation) throws(HTTPClientError) -> HTTPClientResponse {
        let cStrings = headerLines.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let caFile: String? = if case .trust(let path) = tls { path } else { nil }
        var body = wp_curl_buffer()
        var headers = wp_curl_buffer()
        defer {
            wp_curl_buffer_free(&body)
            wp_curl_buffer_free(&headers)
        }
        let result: wp_curl_result = request.method.withCString { method in
            url.withCString { url in
                withOptionalCString(caFile) { ca in
                    cStrings.map { UnsafePointer($0) }.withUnsafeBufferPointer { headerArray in
                        request.body.withUnsafeBufferPointer { bodyBytes in
                            var options = wp_curl_request()
                            options.method = method
                            options.url = url
                            options.headers = headerArray.baseAddress
                            options.header_count = headerArray.count
                            options.body = bodyBytes.baseAddress
                            options.body_length = bodyBytes.count
                            options.timeout_ms = deadline.curlMilliseconds
                            options.verify_peer = tls == .skip ? 0 : 1
                            options.ca_file = ca
                            options.user_agent = nil
                            options.max_body_bytes = configuration.maxBodyBytes
                            options.abort_flag = cancellation.abortFlag.pointer
                            return wp_curl_perform(easy, &options, &body, &headers)
                        }
                    }
                }
            }
        }
        if result.shim_error != 0 {
            throw HTTPClientError(.libraryUnavailable, "libcurl, needed for https://, failed: \(Self.text(result.message))")
        }
        if result.curl_code != 0 {
            if cancellation.isCancelled { throw ExchangeCancellation.error }
            if result.body_overflow != 0 {
                throw HTTPClientError(.tooLarge, "the response body is larger than \(configuration.maxBodyBytes) bytes")
            }
            throw Self.map(code: result.curl_code, detail: Self.text(result.message), caFile: caFile)
        }
        let bytes = body.data.map { Array(UnsafeBufferPointer(start: $0, count: body.length)) } ?? []
        let headerBytes = headers.data.map { Array(UnsafeBufferPointer(start: $0, count: headers.length)) } ?? []
        return HTTPClientResponse(status: result.status, headers: Self.parseHeaders(headerBytes), body: bytes)
    }

    /// Maps a CURLcode onto an ``HTTPClientError``. `detail` is curl's error text, which the
    /// kind already classifies (certificate, TLS, time-out), so it is kept as it is.
    static func map(code: Int32, detail: String, caFile: String?) -> HTTPClientError {
        switch code {
        case 28: HTTPClientError(.timeout, detail)
        case 42: ExchangeCancellation.error
        case 60, 51, 83, 90, 91: HTTPClientError(.certificate, detail)
        case 77: HTTPClientError(.caFile, "cannot use the CA file \(caFile.map { "'\($0)'" } ?? ""): \(detail)")
        case 35, 53, 54, 58, 59, 64, 66, 80, 82, 98: HTTPClientError(.tls, detail)
        case 6: HTTPClientError(.hostNotFound, detail)
        case 7: HTTPClientError(.connectionRefused, detail)
        case 1: HTTPClientError(.unsupportedScheme, "unsupported URL scheme: only http:// and https:// are supported")
        case 8: HTTPClientError(.malformedResponse, "the server's response is not valid HTTP: \(detail)")
        case 16: HTTPClientError(.malformedResponse, "HTTP/2 framing error: \(detail)")
        default: HTTPClientError(.network, "\(detail) (curl code \(code))")
        }
    }

    /// `error` with the request's path, query and header values removed from its detail, in
    /// case libcurl quoted any of them.
    static func scrubbed(_ error: HTTPClientError, of request: HTTPClientRequest, target: RequestTarget) -> HTTPClientError {
        var secrets = request.headers.map(\.value).filter { $0.count >= 3 }
        if target.pathAndQuery != "/" { secrets.append(target.pathAndQuery) }
        return HTTPClientError(error.kind, Redaction.masking(secrets, in: error.detail))
    }

    /// The header fields of the last response block in curl's raw header bytes.
    static func parseHeaders(_ raw: [UInt8]) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for line in raw.split(separator: UInt8(ascii: "\n")) {
            let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            if trimmed.starts(with: Array("HTTP/".utf8)) {
                fields.removeAll() // a new response block (after 1xx) starts
            } else if let field = try? ResponseSyntax.headerField(trimmed, index: fields.count + 1) {
                fields.append(field)
            }
        }
        return fields
    }

    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func text(_ characters: [CChar]) -> String {
        String(cBuffer: characters)
    }
}

/// Owns one curl easy handle and destroys it with the session.
///
/// `@unchecked Sendable` is safe here: a handle is used by one transfer at a time, the one
/// that took it out of ``CurlSession``'s idle list (under its lock), and the list hands it to
/// the next transfer only after it was put back.
private final class CurlHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    init(raw: UnsafeMutableRawPointer) { self.raw = raw }
    deinit { wp_curl_handle_destroy(raw) }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
