import CCurlShim
import Dispatch
import Foundation
import Synchronization

/// An ``HTTPTransport`` on libcurl, loaded at run time: the transport that can skip TLS
/// verification or trust one CA bundle on Linux, where `URLSession` can do neither.
///
/// One curl easy handle is kept per transport, so connections and TLS sessions are reused.
/// Requests run one at a time on a private dispatch queue (never on the Swift concurrency
/// pool, since curl blocks), guarded by a mutex. Redirects are never followed.
///
/// ```swift
/// let transport = CurlTransport(tls: .trust(caFile: "/etc/wpexporter/winpower-ca.pem"))
/// ```
public final class CurlTransport: HTTPTransport {
    /// How server certificates are checked.
    public enum TLSVerification: Sendable, Equatable {
        /// Against the system trust store.
        case system
        /// Against the PEM bundle at this path only.
        case trust(caFile: String)
        /// Not at all (`winpower.skip_ssl_verify`): encrypted but not authenticated.
        case skip
    }

    private let tls: TLSVerification
    private let userAgent: String?
    private let maxBodyBytes: Int
    private let queue = DispatchQueue(label: "wpexporter.curl")
    /// The easy handle; only used while holding this lock, on `queue`.
    private let handle = Mutex<CurlHandle?>(nil)

    /// - Parameters:
    ///   - tls: certificate checking; ``TLSVerification/system`` by default.
    ///   - userAgent: the `User-Agent` to send when the request has none.
    ///   - maxBodyBytes: larger responses fail with a `network` error instead of eating memory.
    public init(tls: TLSVerification = .system, userAgent: String? = nil, maxBodyBytes: Int = 64 << 20) {
        self.tls = tls
        self.userAgent = userAgent
        self.maxBodyBytes = maxBodyBytes
    }

    /// Whether libcurl can be loaded in this process; the message says why not.
    public static func availability() -> Result<Void, ClientError> {
        var message = [CChar](repeating: 0, count: 256)
        if wp_curl_load(&message, message.count) == 0 { return .success(()) }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .failure(ClientError(.network, "libcurl unavailable: \(text)"))
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let abort = AbortFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { [self] in
                    continuation.resume(with: Result { try perform(request, abort: abort) })
                }
            }
        } onCancel: {
            abort.raise()
        }
    }

    private func perform(_ request: TransportRequest, abort: AbortFlag) throws -> TransportResponse {
        try handle.withLock { stored -> TransportResponse in
            if stored == nil {
                guard let raw = wp_curl_handle_create() else {
                    if case .failure(let error) = Self.availability() { throw error }
                    throw ClientError(.network, "could not create a curl handle")
                }
                stored = CurlHandle(raw: raw)
            }
            guard let easy = stored?.raw else { throw ClientError(.network, "could not create a curl handle") }
            return try perform(request, on: easy, abort: abort)
        }
    }

    private func perform(_ request: TransportRequest, on easy: UnsafeMutableRawPointer,
                         abort: AbortFlag) throws -> TransportResponse {
        var headerLines = request.headers.map { "\($0.name): \($0.value)" }
        if let userAgent, request.header("User-Agent") == nil { headerLines.append("User-Agent: \(userAgent)") }
        if request.header("Expect") == nil { headerLines.append("Expect:") } // no 100-continue round trip
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
            request.url.absoluteString.withCString { url in
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
                            options.timeout_ms = request.timeout.clampedMilliseconds
                            options.verify_peer = tls == .skip ? 0 : 1
                            options.ca_file = ca
                            options.user_agent = nil
                            options.max_body_bytes = maxBodyBytes
                            options.abort_flag = UnsafePointer(abort.pointer)
                            return wp_curl_perform(easy, &options, &body, &headers)
                        }
                    }
                }
            }
        }
        if result.shim_error != 0 {
            throw ClientError(.network, "libcurl unavailable: \(Self.text(result.message))")
        }
        if result.curl_code != 0 {
            throw Self.map(code: result.curl_code, detail: Self.text(result.message), caFile: caFile)
        }
        let bytes = body.data.map { Array(UnsafeBufferPointer(start: $0, count: body.length)) } ?? []
        let headerBytes = headers.data.map { Array(UnsafeBufferPointer(start: $0, count: headers.length)) } ?? []
        return TransportResponse(status: result.status, headers: Self.parseHeaders(headerBytes), body: bytes)
    }

    /// Maps a CURLcode onto a ``ClientError``. `detail` is curl's error text, which names the
    /// host but never the path, query or headers.
    static func map(code: Int32, detail: String, caFile: String?) -> ClientError {
        switch code {
        case 28:
            return ClientError(.timeout, "request timed out (winpower.api_timeout): \(detail)")
        case 42:
            return ClientError(.network, "request cancelled")
        case 60, 51, 83, 90, 91:
            return .certificate(detail)
        case 77:
            return ClientError(.tls, "cannot use winpower.ca_file \(caFile.map { "'\($0)'" } ?? ""): \(detail)")
        case 35, 53, 54, 58, 59, 64, 66, 80, 82, 98:
            return ClientError(.tls, "TLS handshake failed (\(detail)); if the server uses a self-signed certificate, "
                                   + "set winpower.ca_file or winpower.skip_ssl_verify: true")
        case 6:
            return ClientError(.network, "host not found: check winpower.base_url (\(detail))")
        case 7:
            return ClientError(.network, "cannot connect: check winpower.base_url and that WinPower is running (\(detail))")
        case 1:
            return ClientError(.network, "unsupported URL scheme: winpower.base_url must start with http:// or https://")
        default:
            return ClientError(.network, "request failed: \(detail) (curl code \(code))")
        }
    }

    /// The header fields of the last response block in curl's raw header bytes.
    static func parseHeaders(_ raw: [UInt8]) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for line in String(decoding: raw, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("HTTP/") {
                fields.removeAll() // a new response block (after 1xx) starts
            } else if let colon = line.firstIndex(of: ":") {
                fields.append((name: String(line[..<colon]),
                               value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        return fields
    }

    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// Owns one curl easy handle and destroys it with the transport.
private final class CurlHandle {
    let raw: UnsafeMutableRawPointer
    init(raw: UnsafeMutableRawPointer) { self.raw = raw }
    deinit { wp_curl_handle_destroy(raw) }
}

/// A flag libcurl's progress callback polls to abort a cancelled transfer.
///
/// `@unchecked Sendable` is safe here: the only mutation is `raise()` storing 1 into a
/// heap-allocated `Int32` that the C side only reads (through a `volatile` pointer); a torn or
/// late read merely delays the abort to the next progress callback.
private final class AbortFlag: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Int32>
    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: 0)
    }
    func raise() { pointer.pointee = 1 }
    deinit { pointer.deallocate() }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
